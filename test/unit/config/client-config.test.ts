import { loadClientConfig } from '../../../src/client/config';
import { ConfigError } from '../../../src/config/env';

const ENV = { KAFKA_BROKERS: 'k1:9092,k2:9092', SCHEMA_REGISTRY_URL: 'http://registry:8081' };

describe('requester configuration (client library, CLI, demo)', () => {
  it('reads the service’s own variables, with the contract’s topic names and a 5 s timeout by default', () => {
    const config = loadClientConfig({}, ENV);
    expect(config).toMatchObject({
      kafka: { brokers: ['k1:9092', 'k2:9092'], clientId: 'wholesale-client' },
      schemaRegistryUrl: 'http://registry:8081',
      requestTimeoutMs: 5000,
      wholesaleCustomerId: undefined,
      token: undefined,
      logLevel: 'warn',
    });
    expect(config.topics.portinReplies).toBe('wholesale.portin.replies.v1');
    expect(config.topics.balanceEvents).toBe('wholesale.balance.events.v1');
  });

  it('lets overrides (the CLI’s flags) win over the environment', () => {
    const config = loadClientConfig({ CLIENT_TIMEOUT_MS: '1500', WHOLESALE_CUSTOMER_ID: 'WC-1' }, { ...ENV, CLIENT_TIMEOUT_MS: '9000', TOPIC_PORTIN_REPLIES: 'my.replies' });
    expect(config.requestTimeoutMs).toBe(1500);
    expect(config.wholesaleCustomerId).toBe('WC-1');
    expect(config.topics.portinReplies).toBe('my.replies');
  });

  it('names the variable that is missing or bad, and needs no Redis', () => {
    expect(() => loadClientConfig({}, { SCHEMA_REGISTRY_URL: 'http://r' })).toThrow(new ConfigError('KAFKA_BROKERS', 'a non-empty value', undefined));
    expect(() => loadClientConfig({ CLIENT_TIMEOUT_MS: '0' }, ENV)).toThrow('CLIENT_TIMEOUT_MS: expected a whole number from 1 to 3600000, got "0"');
  });
});
