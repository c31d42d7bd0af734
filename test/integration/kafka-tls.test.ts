import { Admin } from '@platformatic/kafka';
import pino from 'pino';
import { startLocalKafka, type LocalKafka } from '../../dev/stack';
import { withAdmin } from '../../src/adapters/kafka/admin-session';
import { clientOptions, type KafkaConnection } from '../../src/adapters/kafka/connection';
import { WholesaleClient } from '../../src/client';
import { loadClientConfig } from '../../src/client/config';
import { EnvReader } from '../../src/config/env';
import { loadKafkaSecurity } from '../../src/config/kafka';
import { HEADER } from '../../src/contract/headers';
import { envFor, startTestService, testConfig, TestRequester } from '../support/harness';
import { createTestPki, type TestPki } from '../support/test-pki';

/**
 * Kafka over TLS: a Kafka of its own whose certificate a CA made at test time signed (test/support/test-pki.ts,
 * openssl into a temporary folder), with an SSL listener, an MTLS listener requiring a client certificate and
 * a SASL_SSL listener. The service, the client library and a kafkajs partner reach it with KAFKA_TLS_* from the
 * environment; every refusal is the TLS handshake's, within a bounded time. The registry and Redis are the
 * shared stack's.
 */
describe('Kafka over TLS', () => {
  const USER = { username: 'wholesale-svc', password: 'right-password-1' };
  // A refused client gives up after its retries (20 x 500 ms): well under this, never a hang.
  const REFUSAL_BOUND_MS = 45_000;
  let pki: TestPki;
  let kafka: LocalKafka;

  beforeAll(async () => {
    pki = createTestPki();
    const started = Date.now();
    kafka = await startLocalKafka({
      tls: { certificateChain: pki.brokerChain, privateKey: pki.broker.privateKey, clientCa: pki.ca.certificate },
      sasl: { users: [USER] },
    });
    console.info(`TLS broker ready in ${Date.now() - started} ms`);
  }, 240_000);

  afterAll(async () => {
    await kafka?.dispose();
    pki?.dispose();
  });

  /** The connection the service would build from `env` (KAFKA_BROKERS, KAFKA_TLS_*, KAFKA_SASL_*). */
  const connectionFrom = (env: Record<string, string>): KafkaConnection => {
    const reader = new EnvReader(env);
    return { brokers: reader.brokers('KAFKA_BROKERS'), clientId: 'tls-probe', log: pino({ level: 'silent' }), security: loadKafkaSecurity(reader) };
  };

  /** Asks the brokers for the cluster's metadata through the service's own client options. */
  const brokerCount = (env: Record<string, string>): Promise<number> => withAdmin(connectionFrom(env), async (admin) => (await admin.metadata({ topics: [], forceUpdate: true })).brokers.size);

  /**
   * One metadata request without retries, and why the broker dropped each connection. Under TLS 1.3 the
   * broker checks the client's certificate after the client's handshake has finished: the client library
   * sees a connection that closes (a retriable "Connection closed"), the TLS alert only on the connection.
   */
  const mutualTlsAttempt = async (env: Record<string, string>): Promise<{ error: unknown; alerts: string[] }> => {
    const admin = new Admin({ ...clientOptions(connectionFrom(env)), retries: 0 });
    const alerts: string[] = [];
    admin.on('client:broker:connect', ({ connection }) => {
      connection.once('error', (error: Error) => alerts.push(String((error.cause as Error | undefined)?.message ?? error.message)));
    });
    try {
      await admin.metadata({ topics: [], forceUpdate: true });
      return { error: undefined, alerts };
    } catch (error) {
      return { error, alerts };
    } finally {
      await admin.close();
    }
  };

  const expectRefusal = async (env: Record<string, string>, reason: RegExp): Promise<void> => {
    const started = Date.now();
    await expect(brokerCount(env)).rejects.toThrow(reason);
    expect(Date.now() - started).toBeLessThan(REFUSAL_BOUND_MS);
  };

  const tlsEnv = (extra: Record<string, string> = {}) => ({ KAFKA_BROKERS: kafka.tlsBrokers!.join(','), KAFKA_TLS_CA_FILE: pki.ca.certFile, ...extra });

  /** Starts the service with `env` and has the client library, connected with the same settings, get an eligibility check answered. */
  const expectAnsweredOver = async (env: Record<string, string>): Promise<void> => {
    const config = testConfig(env);
    const service = await startTestService(config);
    const client = await WholesaleClient.connect({ config: loadClientConfig({ ...envFor(config), ...env }) });
    try {
      expect(await client.checkPortInEligibility({ gpsi: '19459986891' })).toMatchObject({ status: 'Success' });
    } finally {
      await client.close();
      await service.stop();
    }
  };

  it('trusting the test CA, the service answers a command sent by the client library and by a kafkajs partner over the SSL listener', async () => {
    const env = tlsEnv();
    const config = testConfig(env);
    const service = await startTestService(config);
    const requester = await TestRequester.start(config);
    const client = await WholesaleClient.connect({ config: loadClientConfig({ ...envFor(config), ...env }) });
    try {
      expect(await client.checkPortInEligibility({ gpsi: '19459986891' })).toMatchObject({ status: 'Success' });
      const reply = await requester.send('portinCommands', 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: '19459986891' });
      expect(reply.headers[HEADER.status]).toBe('Success');
    } finally {
      await client.close();
      await requester.stop();
      await service.stop();
    }
  });

  it('SCRAM over TLS (SASL_SSL): the service answers the client library', async () => {
    await expectAnsweredOver(
      tlsEnv({ KAFKA_BROKERS: kafka.saslTlsBrokers!.join(','), KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: USER.username, KAFKA_SASL_PASSWORD: USER.password }),
    );
  });

  it('a service that does not trust the CA does not start: the handshake refuses the broker certificate', async () => {
    const started = Date.now();
    await expect(startTestService(testConfig(tlsEnv({ KAFKA_TLS_CA_FILE: pki.otherCa.certFile })))).rejects.toThrow(/self-signed certificate in certificate chain/);
    expect(Date.now() - started).toBeLessThan(REFUSAL_BOUND_MS);
  });

  it('with the system CAs only (KAFKA_TLS=true) the test broker is refused', async () => {
    await expectRefusal({ KAFKA_BROKERS: kafka.tlsBrokers!.join(','), KAFKA_TLS: 'true' }, /self-signed certificate in certificate chain/);
  });

  it('KAFKA_TLS_REJECT_UNAUTHORIZED=false connects without trusting the CA', async () => {
    expect(await brokerCount({ KAFKA_BROKERS: kafka.tlsBrokers!.join(','), KAFKA_TLS: 'true', KAFKA_TLS_REJECT_UNAUTHORIZED: 'false' })).toBe(1);
  });

  it('KAFKA_TLS_SERVERNAME: a broker reached by a name its certificate lacks is refused, unless the name to verify is one it has', async () => {
    const byLocalhost = { KAFKA_BROKERS: `localhost:${kafka.tlsBrokers![0].split(':')[1]}`, KAFKA_TLS_CA_FILE: pki.ca.certFile };
    await expectRefusal(byLocalhost, /Host: localhost\. is not in the cert's altnames/);
    expect(await brokerCount({ ...byLocalhost, KAFKA_TLS_SERVERNAME: pki.brokerName })).toBe(1);
    await expectRefusal({ ...byLocalhost, KAFKA_TLS_SERVERNAME: 'other.wholesale.test' }, /Host: other\.wholesale\.test\. is not in the cert's altnames/);
  });

  // Known defect: through the service's own retries (20, nested for metadata and ApiVersions: 441 handshakes)
  // such a refusal surfaces after about 4 minutes, as "Connection closed"; hence one attempt here and the
  // alert read from the connection.
  it('mutual TLS: with KAFKA_TLS_CERT_FILE/KEY_FILE signed by the CA the service answers; without a client certificate, or with one the broker does not trust, the broker refuses the handshake', async () => {
    const mutual = { KAFKA_BROKERS: kafka.mutualTlsBrokers!.join(','), KAFKA_TLS_CA_FILE: pki.ca.certFile };
    const refusals: [Record<string, string>, RegExp][] = [
      [mutual, /alert bad certificate/], // no client certificate
      [{ ...mutual, KAFKA_TLS_CERT_FILE: pki.foreignClient.certFile, KAFKA_TLS_KEY_FILE: pki.foreignClient.keyFile }, /alert certificate unknown/],
    ];
    for (const [refused, alert] of refusals) {
      const { error, alerts } = await mutualTlsAttempt(refused);
      expect(error).toBeDefined();
      expect(alerts.join('; ')).toMatch(alert);
    }
    await expectAnsweredOver({ ...mutual, KAFKA_TLS_CERT_FILE: pki.client.certFile, KAFKA_TLS_KEY_FILE: pki.client.keyFile });
  });
});
