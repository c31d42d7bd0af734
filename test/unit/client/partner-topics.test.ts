import { loadClientConfig } from '../../../src/client/config';
import { partnerOfRequester, requesterTopics } from '../../../src/client/partner';

/** Which topics a requester writes and reads: its partner's own, else (AUTH_MODE=none only) the shared ones. */
const config = loadClientConfig({}, { KAFKA_BROKERS: 'k:1', SCHEMA_REGISTRY_URL: 'http://r', CUSTOMERS_FILE: '/nonexistent/customers.json' });

describe("a requester's topics", () => {
  it('a partner sends on its own command topics and reads its own reply and event topics, with consumer groups inside its namespace', () => {
    expect(requesterTopics(config, 'P1')).toEqual({
      partnerId: 'P1',
      commands: { portinCommands: 'wholesale.partner.P1.portin.commands.v1', balanceCommands: 'wholesale.partner.P1.balance.commands.v1' },
      replies: { portin: 'wholesale.partner.P1.portin.replies.v1', balance: 'wholesale.partner.P1.balance.replies.v1' },
      events: { portin: 'wholesale.partner.P1.portin.events.v1', balance: 'wholesale.partner.P1.balance.events.v1' },
      groupPrefix: 'wholesale.partner.P1.',
    });
  });

  it('WHOLESALE_SHARED_COMMAND_TOPICS keeps the shared command topics; its replies stay on its own topics', () => {
    const shared = loadClientConfig({}, { KAFKA_BROKERS: 'k:1', SCHEMA_REGISTRY_URL: 'http://r', WHOLESALE_SHARED_COMMAND_TOPICS: 'true' });
    expect(requesterTopics(shared, 'P1')).toMatchObject({
      commands: { portinCommands: 'wholesale.portin.commands.v1', balanceCommands: 'wholesale.balance.commands.v1' },
      replies: { balance: 'wholesale.partner.P1.balance.replies.v1' },
    });
  });

  it("without a partner: the shared command topics, the legacy shared reply topics and the operator's event topics", () => {
    expect(requesterTopics(config, undefined)).toMatchObject({
      commands: { portinCommands: 'wholesale.portin.commands.v1' },
      replies: { portin: 'wholesale.portin.replies.v1' },
      events: { balance: 'wholesale.balance.events.v1' },
      groupPrefix: '',
    });
  });

  it('the partner given wins; without one and without a hierarchy file, none is known', () => {
    expect(partnerOfRequester({ ...config, partnerId: 'P2' }, 'P3')).toBe('P3');
    expect(partnerOfRequester({ ...config, partnerId: 'P2' })).toBe('P2');
    expect(partnerOfRequester({ ...config, wholesaleCustomerId: 'B1' })).toBeUndefined();
  });
});
