import { loadStackConfig } from '../../../dev/stack/config';
import { ConfigError } from '../../../src/config/env';
import { provideStack } from '../../../dev/stack';
import { lastLines } from '../../../dev/stack/process/log-tail';
import { redisServerArgs } from '../../../dev/stack/redis/local-redis';

describe('redisServerArgs', () => {
  it('binds loopback, keeps data in its folder, AOF with fsync every second by default, no RDB snapshots', () => {
    expect(redisServerArgs(16379, '/tmp/r')).toEqual([
      '--port',
      '16379',
      '--bind',
      '127.0.0.1',
      '--dir',
      '/tmp/r',
      '--save',
      '',
      '--daemonize',
      'no',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
    ]);
  });

  it('runs a cluster node without persistence when asked, with extra arguments last', () => {
    const args = redisServerArgs(16379, '/tmp/r', { clusterEnabled: true, appendOnly: false, extraArgs: ['--maxmemory', '64mb'] });
    expect(args.join(' ')).toContain('--appendonly no');
    expect(args.join(' ')).toContain('--cluster-enabled yes --cluster-config-file nodes.conf');
    expect(args.slice(-2)).toEqual(['--maxmemory', '64mb']);
  });
});

describe('lastLines', () => {
  it('returns the last n lines without trailing blank lines', () => {
    expect(lastLines('a\nb\nc\nd\n\n', 2)).toBe('c\nd');
    expect(lastLines('only', 5)).toBe('only');
  });
});

describe('loadStackConfig', () => {
  it('defaults: nothing given, auto kind, a cache under the cache home', () => {
    const config = loadStackConfig({ XDG_CACHE_HOME: '/c' });
    expect(config).toEqual({ given: {}, kind: 'auto', runtimeProbeMs: 3000, cacheDir: '/c/wholesale-stack', keepFiles: false, kafkaVersion: '4.4.0' });
  });

  it('reads given endpoints and the STACK_ settings', () => {
    const config = loadStackConfig({
      KAFKA_BROKERS: 'a:9092, b:9093',
      SCHEMA_REGISTRY_URL: 'http://r:8081',
      REDIS_URL: 'redis://x:6379, redis://y:6379',
      STACK_KIND: 'local',
      STACK_CACHE_DIR: '/cache',
      STACK_KEEP_FILES: 'true',
      STACK_RUNTIME_PROBE_MS: '500',
      STACK_KAFKA_VERSION: '3.9.1',
    });
    expect(config).toEqual({
      given: { kafkaBrokers: ['a:9092', 'b:9093'], schemaRegistryUrl: 'http://r:8081', redisUrl: 'redis://x:6379,redis://y:6379' },
      kind: 'local',
      runtimeProbeMs: 500,
      cacheDir: '/cache',
      keepFiles: true,
      kafkaVersion: '3.9.1',
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => loadStackConfig({ STACK_KIND: 'docker' })).toThrow(ConfigError);
    expect(() => loadStackConfig({ STACK_KIND: 'docker' })).toThrow(/^STACK_KIND: expected one of auto, containers, local/);
    expect(() => loadStackConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/^REDIS_URL: expected comma-separated URLs/);
  });
});

describe('provideStack with every endpoint given', () => {
  it('uses them as they are, starts nothing, and stop() does nothing', async () => {
    const stack = await provideStack({ env: { KAFKA_BROKERS: 'k1:9092,k2:9092', SCHEMA_REGISTRY_URL: 'http://reg:8081/apis/ccompat/v7', REDIS_URL: 'redis://r:6379' } });
    expect(stack.kind).toBe('env');
    expect(stack.kafkaBrokers).toEqual(['k1:9092', 'k2:9092']);
    expect(stack.schemaRegistryUrl).toBe('http://reg:8081/apis/ccompat/v7');
    expect(stack.redisUrl).toBe('redis://r:6379');
    expect(stack.describe()).toBe('env stack: Kafka k1:9092,k2:9092 (given); schema registry http://reg:8081/apis/ccompat/v7 (given); Redis redis://r:6379 (given)');
    await expect(stack.stop()).resolves.toBeUndefined();
  });
});
