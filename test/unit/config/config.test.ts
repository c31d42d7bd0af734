import { loadConfig } from '../../../src/app/config';
import { ConfigError } from '../../../src/config/env';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
  REDIS_URL: 'redis://127.0.0.1:6379',
  // AUTH_MODE=jwt is the default and needs its key source and issuer.
  AUTH_JWKS_FILE: 'keys/jwks.json',
  AUTH_ISSUER: 'https://idp.example',
  // ... and a key to seal dead letters with.
  DLQ_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.topics.portinCommands).toBe('wholesale.portin.commands.v1');
    expect(config.topics.deadLetters).toBe('wholesale.commands.dlq.v1');
    expect(config.limits.idempotencyTtlSeconds).toBe(86400);
    expect(config.redis).toEqual({ urls: ['redis://127.0.0.1:6379'], keyPrefix: 'wh:', cluster: false, commandTimeoutMs: 2000, connectTimeoutMs: 5000, replicasToAck: 0 });
    expect(config.kafka).toMatchObject({ sessionTimeoutMs: 30000, heartbeatIntervalMs: 3000 });
  });

  it('names the registry in ce_dataschema without the credentials of SCHEMA_REGISTRY_URL, or as EVENT_DATASCHEMA_BASE_URL says', () => {
    expect(loadConfig(base).eventDataSchemaBaseUrl).toBe('http://127.0.0.1:8081');
    expect(loadConfig({ ...base, SCHEMA_REGISTRY_URL: 'https://svc:s3cret@registry.internal/apis/ccompat/v7/' }).eventDataSchemaBaseUrl).toBe('https://registry.internal/apis/ccompat/v7');
    expect(loadConfig({ ...base, EVENT_DATASCHEMA_BASE_URL: 'https://schemas.example.com/v7' }).eventDataSchemaBaseUrl).toBe('https://schemas.example.com/v7');
  });

  it.each([
    [{ EVENT_DATASCHEMA_BASE_URL: 'schemas' }, 'EVENT_DATASCHEMA_BASE_URL'],
    [{ KAFKA_BROKERS: undefined }, 'KAFKA_BROKERS'],
    [{ KAFKA_BROKERS: 'localhost' }, 'KAFKA_BROKERS'],
    [{ SCHEMA_REGISTRY_URL: 'ftp://x' }, 'SCHEMA_REGISTRY_URL'],
    [{ REDIS_URL: 'redis://a:1,http://b:2' }, 'REDIS_URL'],
    [{ TOPIC_PARTITIONS: '0' }, 'TOPIC_PARTITIONS'],
    [{ REDIS_CLUSTER: 'yes' }, 'REDIS_CLUSTER'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NON_PORTABLE_RANGES: 'abc' }, 'NON_PORTABLE_RANGES'],
    [{ KAFKA_SESSION_TIMEOUT_MS: '5000' }, 'KAFKA_SESSION_TIMEOUT_MS'],
    [{ KAFKA_SESSION_TIMEOUT_MS: '9000', KAFKA_HEARTBEAT_INTERVAL_MS: '3001' }, 'KAFKA_HEARTBEAT_INTERVAL_MS'],
    [{ IDEMPOTENCY_TTL_SECONDS: '600', STALE_COMMAND_MARGIN_SECONDS: '600' }, 'STALE_COMMAND_MARGIN_SECONDS'],
  ])('stops with one line naming the variable: %j', (override, variable) => {
    let error: unknown;
    try {
      loadConfig({ ...base, ...override });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toMatch(new RegExp(`^${variable}: expected .+, got `));
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('keeps the stale-command margin inside the idempotency window: an hour, or half of a window under 2 h', () => {
    expect(loadConfig(base).limits).toMatchObject({ idempotencyTtlSeconds: 86_400, staleCommandMarginSeconds: 3600 });
    expect(loadConfig({ ...base, IDEMPOTENCY_TTL_SECONDS: '600' }).limits.staleCommandMarginSeconds).toBe(300);
  });

  it('reads a Redis Cluster as a comma-separated node list and topic names from the environment', () => {
    const config = loadConfig({ ...base, REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:1, redis://b:2', TOPIC_PORTIN_EVENTS: 'my.events' });
    expect(config.redis.urls).toEqual(['redis://a:1', 'redis://b:2']);
    expect(config.topics.portinEvents).toBe('my.events');
  });
});
