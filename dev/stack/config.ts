import { homedir } from 'node:os';
import { join } from 'node:path';
import { EnvReader, type Env } from '../../src/config/env';
import { DEFAULT_KAFKA_VERSION } from './versions';

/** Settings of the stack provider (dev/stack): where the dev and test servers come from. */
export interface StackConfig {
  /** Endpoints given in the environment; the provider starts only the ones missing. */
  given: { kafkaBrokers?: string[]; schemaRegistryUrl?: string; redisUrl?: string };
  /** STACK_KIND: `auto` tries containers, then local processes; the others force one way. */
  kind: 'auto' | 'containers' | 'local';
  /** How long the container-runtime probe may take before the provider moves on. */
  runtimeProbeMs: number;
  /** Where unpacked server distributions are cached between runs, keyed by version. */
  cacheDir: string;
  /** STACK_KEEP_FILES: keep data folders and logs of local servers after they stop (for debugging). */
  keepFiles: boolean;
  /** STACK_KAFKA_VERSION: the Kafka the local stack and the containers run (default the newest 4.x; 3.9.1 tested too). */
  kafkaVersion: string;
}

export function loadStackConfig(env: Env = process.env): StackConfig {
  const reader = new EnvReader(env);
  const cacheHome = reader.string('XDG_CACHE_HOME', join(homedir(), '.cache'));
  return {
    given: {
      kafkaBrokers: reader.optionalString('KAFKA_BROKERS') === undefined ? undefined : reader.brokers('KAFKA_BROKERS'),
      schemaRegistryUrl: reader.optionalString('SCHEMA_REGISTRY_URL') === undefined ? undefined : reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
      // One URL, or the nodes of a Redis Cluster separated by commas (as the service reads it).
      redisUrl: reader.optionalString('REDIS_URL') === undefined ? undefined : reader.urlList('REDIS_URL', ['redis:', 'rediss:']).join(','),
    },
    kind: reader.oneOf('STACK_KIND', ['auto', 'containers', 'local'], 'auto'),
    runtimeProbeMs: reader.integer('STACK_RUNTIME_PROBE_MS', 3000, 100, 60000),
    cacheDir: reader.string('STACK_CACHE_DIR', join(cacheHome, 'wholesale-stack')),
    keepFiles: reader.boolean('STACK_KEEP_FILES', false),
    kafkaVersion: reader.matching('STACK_KAFKA_VERSION', /^[3-9]\.\d+\.\d+$/, 'a Kafka release such as 4.4.0 or 3.9.1', DEFAULT_KAFKA_VERSION),
  };
}
