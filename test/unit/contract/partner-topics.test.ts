import fc from 'fast-check';
import { PARTNER_COMMAND_ROLES, PARTNER_TOPIC_ROLES, partnerCommandTopicOf, partnerTopic } from '../../../src/contract/partner-topics';

/** Which topics are a partner's own command topics: the worker admits only that partner's commands there. */
const partnerId = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const prefix = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}\.$/);

describe('partnerCommandTopicOf', () => {
  it("names the partner and role of every partner's command topic, and of no other topic of its namespace", () => {
    fc.assert(
      fc.property(prefix, partnerId, fc.constantFrom(...PARTNER_TOPIC_ROLES), (p, id, role) => {
        const expected = (PARTNER_COMMAND_ROLES as string[]).includes(role) ? { partnerId: id, role } : undefined;
        expect(partnerCommandTopicOf(p, partnerTopic(p, id, role))).toEqual(expected);
      }),
    );
  });

  it('is undefined for the shared topics, another prefix, a longer name and an id that cannot name a topic', () => {
    for (const topic of [
      'wholesale.balance.commands.v1',
      'other.P1.balance.commands.v1',
      'wholesale.partner.P1.balance.commands.v1.x',
      'wholesale.partner.P1.x.balance.commands.v1',
      'wholesale.partner..balance.commands.v1',
      'wholesale.partner.P1.balance.commands.v2',
    ]) {
      expect([topic, partnerCommandTopicOf('wholesale.partner.', topic)]).toEqual([topic, undefined]);
    }
  });
});
