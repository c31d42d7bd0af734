import { loadConfig } from '../../../src/app/config';
import { loadNpSimulatorConfig } from '../../../dev/np-simulator/config';
import { loadDlqAdminConfig } from '../../../src/cli/config';
import { loadClientConfig } from '../../../src/client/config';
import { ConfigError } from '../../../src/config/env';

const endpoints = { KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081', REDIS_URL: 'redis://127.0.0.1:6379' };
const DLQ_KEY = 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY='; // base64 of 32 bytes
const jwt = { ...endpoints, AUTH_JWKS_FILE: 'keys/jwks.json', AUTH_ISSUER: 'https://idp.example', DLQ_ENCRYPTION_KEY: DLQ_KEY };

function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('security settings', () => {
  it('authenticates with JWT by default: a key source and an issuer are required', () => {
    expect(configError(endpoints).variable).toBe('AUTH_JWKS_FILE');
    expect(configError({ ...endpoints, AUTH_JWKS_FILE: 'k.json', DLQ_ENCRYPTION_KEY: DLQ_KEY }).variable).toBe('AUTH_ISSUER');
    expect(loadConfig(jwt).auth).toEqual({
      mode: 'jwt',
      keys: { kind: 'jwks-file', file: 'keys/jwks.json' },
      issuer: 'https://idp.example',
      audience: 'wholesale-portin-balance',
      clockToleranceSeconds: 30,
      customerClaim: 'wholesaleCustomerId',
    });
  });

  it('takes exactly one key source: a JWKS file, a JWKS URL or an HS256 secret of at least 32 characters', () => {
    expect(loadConfig({ ...endpoints, AUTH_ISSUER: 'i', AUTH_JWKS_URL: 'https://idp.example/jwks', DLQ_ENCRYPTION_KEY: DLQ_KEY }).auth).toMatchObject({ keys: { kind: 'jwks-url', url: 'https://idp.example/jwks' } });
    expect(loadConfig({ ...endpoints, AUTH_ISSUER: 'i', AUTH_HS256_SECRET: 'x'.repeat(32), DLQ_ENCRYPTION_KEY: DLQ_KEY }).auth).toMatchObject({ keys: { kind: 'hs256' } });
    expect(configError({ ...jwt, AUTH_HS256_SECRET: 'x'.repeat(32) }).variable).toBe('AUTH_JWKS_FILE');
    expect(configError({ ...endpoints, AUTH_ISSUER: 'i', AUTH_JWKS_URL: 'file:///etc/jwks', DLQ_ENCRYPTION_KEY: DLQ_KEY }).variable).toBe('AUTH_JWKS_URL');
    const short = configError({ ...endpoints, AUTH_ISSUER: 'i', AUTH_HS256_SECRET: 'short-secret' });
    expect(short.variable).toBe('AUTH_HS256_SECRET');
    expect(short.message).not.toContain('short-secret');
  });

  it('AUTH_MODE=none needs no keys; the clock tolerance is bounded', () => {
    expect(loadConfig({ ...endpoints, AUTH_MODE: 'none' }).auth).toEqual({ mode: 'none' });
    expect(configError({ ...endpoints, AUTH_MODE: 'off' }).variable).toBe('AUTH_MODE');
    expect(configError({ ...jwt, AUTH_CLOCK_TOLERANCE_SECONDS: '3600' }).variable).toBe('AUTH_CLOCK_TOLERANCE_SECONDS');
  });

  it('rate limit: 100 per second with a burst of twice that and a backlog of 120 s by default, 0 turns it off', () => {
    expect(loadConfig(jwt).rateLimit).toEqual({ perSecond: 100, burst: 200, backlogSeconds: 120 });
    expect(loadConfig({ ...jwt, RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '7', RATE_LIMIT_BACKLOG_SECONDS: '30' }).rateLimit).toEqual({ perSecond: 5, burst: 7, backlogSeconds: 30 });
    expect(loadConfig({ ...jwt, RATE_LIMIT_PER_SECOND: '0' }).rateLimit).toEqual({ perSecond: 0, burst: 1, backlogSeconds: 120 });
    expect(configError({ ...jwt, RATE_LIMIT_BURST: '0' }).variable).toBe('RATE_LIMIT_BURST');
    expect(loadConfig(jwt).customersFile).toBe('config/customers.json');
  });

  it('Kafka transport: plaintext by default; TLS files turn TLS on; SASL needs mechanism, user and password', () => {
    expect(loadConfig(jwt).kafka.security).toEqual({});
    expect(loadConfig({ ...jwt, KAFKA_TLS_CA_FILE: 'ca.pem' }).kafka.security).toEqual({ tls: { caFile: 'ca.pem', rejectUnauthorized: true } });
    expect(loadConfig({ ...jwt, KAFKA_TLS: 'true' }).kafka.security.tls).toEqual({ rejectUnauthorized: true });
    expect(configError({ ...jwt, KAFKA_TLS_CERT_FILE: 'client.pem' }).variable).toBe('KAFKA_TLS_CERT_FILE');
    expect(loadConfig({ ...jwt, KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'pw' }).kafka.security.sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'svc',
      password: 'pw',
    });
    expect(configError({ ...jwt, KAFKA_SASL_MECHANISM: 'gssapi' }).variable).toBe('KAFKA_SASL_MECHANISM');
    expect(configError({ ...jwt, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc' }).variable).toBe('KAFKA_SASL_PASSWORD');
  });

  it('the NP simulator and the client library read the same Kafka transport settings', () => {
    expect(loadClientConfig({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'partner', KAFKA_SASL_PASSWORD: 'pw' }, endpoints).kafka.security).toEqual({
      sasl: { mechanism: 'scram-sha-256', username: 'partner', password: 'pw' },
    });
    const sim = loadNpSimulatorConfig({ ...endpoints, KAFKA_TLS_CA_FILE: 'ca.pem', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'np', KAFKA_SASL_PASSWORD: 'pw' });
    expect(sim.kafka.security).toEqual({ tls: { caFile: 'ca.pem', rejectUnauthorized: true }, sasl: { mechanism: 'plain', username: 'np', password: 'pw' } });
  });

  it('dead letters: AUTH_MODE=jwt does not start without a 32-byte key; AUTH_MODE=none may (bodies are then dropped)', () => {
    const { DLQ_ENCRYPTION_KEY: _key, ...jwtWithoutKey } = jwt;
    expect(configError(jwtWithoutKey).variable).toBe('DLQ_ENCRYPTION_KEY');
    expect(loadConfig(jwt).deadLetters).toEqual({ encryptionKey: { id: 'dlq-1', key: DLQ_KEY } });
    expect(loadConfig({ ...jwt, DLQ_ENCRYPTION_KEY_ID: 'k-2026.11' }).deadLetters.encryptionKey?.id).toBe('k-2026.11');
    expect(loadConfig({ ...endpoints, AUTH_MODE: 'none' }).deadLetters).toEqual({});
    for (const bad of ['c2hvcnQ=', 'x'.repeat(44), `${DLQ_KEY}AA`]) {
      const error = configError({ ...jwt, DLQ_ENCRYPTION_KEY: bad });
      expect([error.variable, error.message.includes(bad)]).toEqual(['DLQ_ENCRYPTION_KEY', false]); // never echoes the value
    }
    expect(configError({ ...jwt, DLQ_ENCRYPTION_KEY_ID: 'has space' }).variable).toBe('DLQ_ENCRYPTION_KEY_ID');
  });

  it('the dead-letter admin reads the current key and older ones by id (DLQ_DECRYPTION_KEYS)', () => {
    const old = Buffer.alloc(32, 7).toString('base64');
    const admin = loadDlqAdminConfig({}, { KAFKA_BROKERS: endpoints.KAFKA_BROKERS, DLQ_ENCRYPTION_KEY: DLQ_KEY, DLQ_ENCRYPTION_KEY_ID: 'k2', DLQ_DECRYPTION_KEYS: `k1:${old}` });
    expect(admin.keys).toEqual([{ id: 'k2', key: DLQ_KEY }, { id: 'k1', key: old }]);
    expect(admin.schemaRegistryUrl).toBeUndefined();
    expect(() => loadDlqAdminConfig({}, { KAFKA_BROKERS: endpoints.KAFKA_BROKERS, DLQ_DECRYPTION_KEYS: 'k1' })).toThrow(/DLQ_DECRYPTION_KEYS/);
  });
});
