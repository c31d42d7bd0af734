import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaTransport } from '../support/kafkajs-transport';
import { startLocalKafka, type LocalKafka } from '../../dev/stack';
import { HEADER } from '../../src/contract/headers';
import { WholesaleClient } from '../../src/client';
import { loadNpSimulatorConfig } from '../../dev/np-simulator/config';
import { loadClientConfig } from '../../src/client/config';
import { startNpSimulator } from '../../dev/np-simulator/np-simulator';
import { envFor, startTestService, testConfig, testLogger, TestRequester } from '../support/harness';

/**
 * Kafka transport security: a Kafka of its own with a SASL_PLAINTEXT listener whose SCRAM users are
 * created at format time (dev/stack). The service and its requester reach Kafka only through that
 * listener, with KAFKA_SASL_* from the environment; the registry and Redis are the shared stack's.
 */
describe('Kafka SASL/SCRAM', () => {
  const USER = { username: 'wholesale-svc', password: 'right-password-1' };
  let kafka: LocalKafka;
  const saslEnv = (mechanism: string, password: string) => ({
    KAFKA_BROKERS: kafka.saslBrokers!.join(','),
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: USER.username,
    KAFKA_SASL_PASSWORD: password,
  });

  beforeAll(async () => {
    kafka = await startLocalKafka({ sasl: { users: [USER] } });
  }, 240_000);

  afterAll(async () => {
    await kafka?.dispose();
  });

  it.each(['SCRAM-SHA-512', 'SCRAM-SHA-256'])('with the right password (%s) the service, the client library and the NP simulator connect over the SASL listener', async (mechanism) => {
    const env = saslEnv(mechanism, USER.password);
    const config = testConfig(env);
    const service = await startTestService(config);
    const requester = await TestRequester.start(config);
    const client = await WholesaleClient.connect({ config: loadClientConfig({ ...envFor(config), ...env }) });
    const simulator = await startNpSimulator(loadNpSimulatorConfig({ ...process.env, ...envFor(config), ...env, NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}` }), {
      log: testLogger(config),
    });
    try {
      const reply = await requester.send('portinCommands', 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: '19459986891' });
      expect(reply.headers[HEADER.status]).toBe('Success');
      expect(reply.value.eligibilityStatus).toBeDefined();
      expect(await client.checkPortInEligibility({ gpsi: '19459986891' })).toMatchObject({ status: 'Success' });
      await simulator.joined;
    } finally {
      await simulator.stop();
      await client.close();
      await requester.stop();
      await service.stop();
    }
  });

  it('with a wrong password the service does not start: the broker refuses the authentication', async () => {
    const config = testConfig(saslEnv('SCRAM-SHA-512', 'wrong-password'));
    const started = Date.now();
    await expect(startTestService(config)).rejects.toThrow(/SASL SCRAM SHA512 authentication failed|Authentication failed/i);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('without credentials the SASL listener serves nothing', async () => {
    const admin = new Kafka({
      clientId: 'no-credentials',
      brokers: kafka.saslBrokers!,
      ...kafkaTransport({}),
      logLevel: logLevel.NOTHING,
      retry: { retries: 1 },
      connectionTimeout: 3000,
    }).admin();
    await expect(admin.connect().then(() => admin.listTopics())).rejects.toThrow();
    await admin.disconnect();
  });
});
