import fc from 'fast-check';
import { loadConfig } from '../../../src/app/config';
import { isSecretName, redactConfig, redactUrl, REDACTED } from '../../../src/config/redact';

const base = { KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081', REDIS_URL: 'redis://127.0.0.1:6379', AUTH_MODE: 'none' };

describe('redactConfig', () => {
  it('masks passwords in the Redis and registry URLs of a loaded configuration, and nothing else', () => {
    const config = loadConfig({
      ...base,
      SCHEMA_REGISTRY_URL: 'https://svc:s3cret@registry.example:8081/apis/ccompat/v7',
      REDIS_URL: 'redis://:hunter2@a:6379,rediss://app:pw@b:6380',
      REDIS_CLUSTER: 'true',
    });
    const redacted = redactConfig(config);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(':pw@');
    expect(redacted.schemaRegistryUrl).toBe(`https://svc:${REDACTED}@registry.example:8081/apis/ccompat/v7`);
    expect(redacted.redis.urls).toEqual([`redis://:${REDACTED}@a:6379`, `rediss://app:${REDACTED}@b:6380`]);
    // Everything that is not a secret is logged as it is.
    expect({ ...redacted, schemaRegistryUrl: config.schemaRegistryUrl, redis: config.redis }).toEqual(config);
  });

  it('masks the JWT secret, the SASL password and the TLS key passphrase of a loaded configuration', () => {
    const config = loadConfig({
      ...base,
      AUTH_MODE: 'jwt',
      AUTH_HS256_SECRET: 'an-hs256-secret-of-at-least-32-characters',
      AUTH_ISSUER: 'https://issuer.example',
      DLQ_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'worker',
      KAFKA_SASL_PASSWORD: 'sasl-pw',
      KAFKA_TLS_CERT_FILE: '/tls/client.pem',
      KAFKA_TLS_KEY_FILE: '/tls/client.key',
      KAFKA_TLS_KEY_PASSPHRASE: 'key-pass',
    });
    const redacted = redactConfig(config);
    const text = JSON.stringify(redacted);
    for (const secret of ['an-hs256-secret', 'sasl-pw', 'key-pass', 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=']) expect(text).not.toContain(secret);
    expect(redacted.deadLetters).toEqual({ encryptionKey: { id: 'dlq-1', key: REDACTED } });
    expect(redacted.auth).toMatchObject({ mode: 'jwt', issuer: 'https://issuer.example', keys: { kind: 'hs256', secret: REDACTED } });
    expect(redacted.kafka.security).toEqual({
      sasl: { mechanism: 'scram-sha-512', username: 'worker', password: REDACTED },
      tls: { ...config.kafka.security.tls, keyPassphrase: REDACTED },
    });
  });

  it('leaves the input untouched', () => {
    const config = { db: { password: 'p', url: 'redis://:p@h:1' } };
    redactConfig(config);
    expect(config).toEqual({ db: { password: 'p', url: 'redis://:p@h:1' } });
  });

  it('masks values of secret-named settings at any depth, in arrays too', () => {
    const redacted = redactConfig({
      kafka: { sasl: { mechanism: 'scram-sha-512', username: 'app', password: 'pw' } },
      auth: { jwtSigningKey: 'k', apiKeys: ['a', 'b'], hmacSecret: 's', accessToken: 't', mode: 'jwt' },
      keyPrefix: 'wh:',
      clients: [{ clientSecret: 'x', id: 'c1' }],
    });
    expect(redacted).toEqual({
      kafka: { sasl: { mechanism: 'scram-sha-512', username: 'app', password: REDACTED } },
      auth: { jwtSigningKey: REDACTED, apiKeys: REDACTED, hmacSecret: REDACTED, accessToken: REDACTED, mode: 'jwt' },
      keyPrefix: 'wh:',
      clients: [{ clientSecret: REDACTED, id: 'c1' }],
    });
  });

  it('masks a token given as the user of a URL and secret query parameters', () => {
    expect(redactUrl('https://ghp_abc@example.com/x')).toBe(`https://${REDACTED}@example.com/x`);
    expect(redactUrl('https://example.com/jwks?token=abc&tenant=t1')).toBe(`https://example.com/jwks?token=${REDACTED}&tenant=t1`);
    expect(redactUrl('http://example.com:8081')).toBe('http://example.com:8081');
    expect(redactUrl('127.0.0.1:9092')).toBe('127.0.0.1:9092');
  });

  it.each(['password', 'REDIS_PASSWORD', 'pwdPin', 'apiKey', 'API_KEY', 'key', 'privateKey', 'secret', 'token', 'credentials', 'authorization'])(
    'treats %s as a secret name',
    (name) => expect(isSecretName(name)).toBe(true),
  );

  it.each(['keyPrefix', 'brokers', 'groupId', 'topicPartitions', 'authMode', 'idempotencyTtlSeconds', 'username'])('treats %s as a plain name', (name) =>
    expect(isSecretName(name)).toBe(false),
  );

  it('never lets a URL password through, whatever it is', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9!$&'()*+,;=_~-]{6,20}$/), (user, password) => {
        const url = `redis://${user}:${encodeURIComponent(password)}@host:6379`;
        const redacted = redactConfig({ redis: { urls: [url] } }).redis.urls[0];
        expect(redacted).toBe(`redis://${user}:${REDACTED}@host:6379`);
      }),
    );
  });
});
