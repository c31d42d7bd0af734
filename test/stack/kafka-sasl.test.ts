import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startLocalKafka, type LocalKafka } from '../../dev/stack';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/** startLocalKafka with SASL: SCRAM users created at format time; the right password connects, a wrong one does not. */
describe('startLocalKafka with a SASL_PLAINTEXT SCRAM listener', () => {
  let kafka: LocalKafka;

  beforeAll(async () => {
    const began = Date.now();
    kafka = await startLocalKafka({
      sasl: {
        users: [
          { username: 'alice', password: 'alice-secret' },
          { username: 'bob', password: 'bob-secret', mechanisms: ['SCRAM-SHA-512'] },
        ],
      },
    });
    console.log(`Kafka with SASL ready in ${((Date.now() - began) / 1000).toFixed(1)} s: PLAINTEXT ${kafka.brokers} SASL ${kafka.saslBrokers}`);
  });

  afterAll(async () => {
    await kafka?.dispose();
  });

  const listTopicsAs = async (sasl: SASLOptions | undefined, brokers = kafka.saslBrokers!): Promise<string[]> => {
    const client = new Kafka({
      clientId: 'sasl-test',
      brokers,
      sasl,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 2000,
      authenticationTimeout: 2000,
      requestTimeout: 3000,
      retry: { retries: 0 },
    });
    const admin = client.admin();
    try {
      await admin.connect();
      return await admin.listTopics();
    } finally {
      await admin.disconnect();
    }
  };

  it('exposes a SASL listener apart from the PLAINTEXT one', () => {
    expect(kafka.saslBrokers).toHaveLength(1);
    expect(kafka.saslPort).not.toBe(kafka.port);
    expect(kafka.saslBrokers![0]).toBe(`127.0.0.1:${kafka.saslPort}`);
  });

  it('accepts the right password with SCRAM-SHA-256 and SCRAM-SHA-512', async () => {
    await expect(listTopicsAs({ mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' })).resolves.toContain('__consumer_offsets');
    await expect(listTopicsAs({ mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' })).resolves.toContain('__consumer_offsets');
    await expect(listTopicsAs({ mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' })).resolves.toContain('__consumer_offsets');
  });

  it('refuses a wrong password, an unknown user, and a mechanism the user has no credential for', async () => {
    await expect(listTopicsAs({ mechanism: 'scram-sha-256', username: 'alice', password: 'wrong' })).rejects.toThrow(/SASL SCRAM SHA256 authentication failed/);
    await expect(listTopicsAs({ mechanism: 'scram-sha-512', username: 'mallory', password: 'alice-secret' })).rejects.toThrow(/authentication failed/);
    await expect(listTopicsAs({ mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' })).rejects.toThrow(/authentication failed/);
  });

  it('refuses a client without credentials on the SASL listener', async () => {
    await expect(listTopicsAs(undefined)).rejects.toThrow();
  });

  it('keeps the PLAINTEXT listener open without credentials (admin, inter-broker)', async () => {
    await expect(listTopicsAs(undefined, kafka.brokers)).resolves.toContain('__consumer_offsets');
  });
});
