import { existsSync } from 'node:fs';
import { NoStackError, provideStack } from '../../dev/stack';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/** How provideStack chooses, on this machine (no container runtime; Java, Maven and redis-server installed). */
describe('provideStack', () => {
  it('without a container runtime, STACK_KIND=containers fails at once with one error naming the three ways', async () => {
    const began = Date.now();
    const failure = provideStack({ env: { STACK_KIND: 'containers', STACK_RUNTIME_PROBE_MS: '2000' } });
    await expect(failure).rejects.toThrow(NoStackError);
    const message = ((await failure.catch((e: unknown) => e)) as Error).message;
    expect(message).toMatch(/missing: kafka, registry, redis/);
    expect(message).toMatch(/KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL/);
    expect(message).toMatch(/container runtime .* no container runtime answered within 2000 ms/);
    expect(message).toMatch(/local stack: Java 17\+, Maven .* redis-server — not tried \(STACK_KIND=containers\)/);
    expect(Date.now() - began).toBeLessThan(5000);
  });

  it('starts only what the environment does not give (here the registry), as local processes, and stops it', async () => {
    const stack = await provideStack({ env: { KAFKA_BROKERS: 'given-kafka:9092', REDIS_URL: 'redis://given-redis:6379', STACK_KIND: 'auto' } });
    try {
      expect(stack.kind).toBe('local');
      expect(stack.kafkaBrokers).toEqual(['given-kafka:9092']);
      expect(stack.redisUrl).toBe('redis://given-redis:6379');
      expect(stack.schemaRegistryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7$/);
      expect((await fetch(`${stack.schemaRegistryUrl}/subjects`)).status).toBe(200);
      expect(stack.describe()).toMatch(
        /^local stack: Kafka given-kafka:9092 \(given\); Apicurio Registry 3\.0\.9 at .* \(ready in [\d.]+ s; log .*apicurio\.log\); Redis redis:\/\/given-redis:6379 \(given\)$/,
      );
    } finally {
      await stack.stop();
    }
    const logFile = /log (\S+apicurio\.log)/.exec(stack.describe())![1];
    expect(existsSync(logFile)).toBe(false); // its folder went with it
    await expect(fetch(`${stack.schemaRegistryUrl}/subjects`)).rejects.toThrow();
  });
});
