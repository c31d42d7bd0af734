import { loadStackConfig, type StackConfig } from './config';
import { probeContainerRuntime, startContainerComponent } from './containers';
import { missingLocalPrerequisites, startLocalComponent } from './local';
import type { Component, ProvidedServer, ServerStarter, Stack } from './types';

export type { Stack } from './types';
export { startLocalKafka, startKafkaCluster } from './kafka/local-kafka';
export type { LocalKafka, LocalKafkaOptions, LocalKafkaTls, KafkaCluster, KafkaClusterOptions } from './kafka/local-kafka';
export type { ScramUser, ScramMechanism } from './kafka/broker-config';
export { startLocalRedis } from './redis/local-redis';
export type { LocalRedis, LocalRedisOptions } from './redis/local-redis';
export { startRedisCluster } from './redis/redis-cluster';
export type { RedisCluster, RedisClusterOptions } from './redis/redis-cluster';
export { startLocalRegistry } from './registry/local-registry';
export type { LocalRegistry, LocalRegistryOptions } from './registry/local-registry';
export type { ServerControl } from './process/local-server';
export { StackStartError } from './process/wait';
export { DEFAULT_KAFKA_VERSION, KAFKA_3_VERSION, APICURIO_VERSION, images } from './versions';

export interface ProvideStackOptions {
  /** The environment to read (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL, STACK_*); default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** No way to provide the stack: the message names the three ways and what each one lacked. */
export class NoStackError extends Error {
  constructor(missing: readonly Component[], reasons: { containers: string; local: string }) {
    super(
      `No Kafka/schema registry/Redis stack available (missing: ${missing.join(', ')}). Provide one of:\n` +
        `  1. endpoints in the environment: KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL;\n` +
        `  2. a container runtime (Docker or Podman) for testcontainers — ${reasons.containers};\n` +
        `  3. the local stack: Java 17+, Maven (first run only, reaching Maven Central) and redis-server — ${reasons.local}.`,
    );
    this.name = 'NoStackError';
  }
}

const COMPONENTS: readonly Component[] = ['kafka', 'registry', 'redis'];
const NAMES: Record<Component, string> = { kafka: 'Kafka', registry: 'schema registry', redis: 'Redis' };

/**
 * The stack the service and its integration tests run against, chosen in this order:
 * (a) endpoints given in the environment (only the missing ones are started);
 * (b) containers through testcontainers, when a container runtime answers quickly;
 * (c) local child processes: Kafka and Apicurio Registry from Maven Central jars, Debian's redis-server;
 * (d) otherwise a NoStackError naming the three ways.
 * STACK_KIND=containers|local forces (b) or (c).
 */
export async function provideStack(options: ProvideStackOptions = {}): Promise<Stack> {
  const config = loadStackConfig(options.env);
  const given: Partial<Record<Component, string>> = {
    kafka: config.given.kafkaBrokers?.join(','),
    registry: config.given.schemaRegistryUrl,
    redis: config.given.redisUrl,
  };
  const missing = COMPONENTS.filter((c) => given[c] === undefined);
  if (missing.length === 0) return assemble('env', given as Record<Component, string>, []);

  const { kind, starter } = await chooseStarter(config, missing);
  const started = await startAll(missing, starter);
  const endpoints = { ...given } as Record<Component, string>;
  for (const [component, server] of started) endpoints[component] = server.endpoint;
  return assemble(kind, endpoints, [...started.values()], given);
}

async function chooseStarter(config: StackConfig, missing: readonly Component[]): Promise<{ kind: 'containers' | 'local'; starter: ServerStarter }> {
  let containers = 'not tried (STACK_KIND=local)';
  if (config.kind !== 'local') {
    const runtime = await probeContainerRuntime(config.runtimeProbeMs);
    if (runtime) return { kind: 'containers', starter: (c) => startContainerComponent(c, runtime.tc, runtime.host, config.kafkaVersion) };
    containers = `no container runtime answered within ${config.runtimeProbeMs} ms`;
  }
  let local = 'not tried (STACK_KIND=containers)';
  if (config.kind !== 'containers') {
    const lacking = missingLocalPrerequisites(missing, config.cacheDir, config.kafkaVersion);
    if (lacking.length === 0) return { kind: 'local', starter: (c) => startLocalComponent(c, config) };
    local = `this machine lacks ${lacking.join(', ')}`;
  }
  throw new NoStackError(missing, { containers, local });
}

/** Starts the components together; when one fails, the others are stopped and the first error is thrown. */
async function startAll(components: readonly Component[], starter: ServerStarter): Promise<Map<Component, ProvidedServer>> {
  const results = await Promise.allSettled(components.map((c) => starter(c)));
  const started = new Map<Component, ProvidedServer>();
  results.forEach((result, i) => result.status === 'fulfilled' && started.set(components[i], result.value));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) {
    await Promise.allSettled([...started.values()].map((server) => server.stop()));
    throw failure.reason;
  }
  return started;
}

function assemble(kind: Stack['kind'], endpoints: Record<Component, string>, servers: readonly ProvidedServer[], given: Partial<Record<Component, string>> = endpoints): Stack {
  const parts = COMPONENTS.map((c) => (given[c] !== undefined ? `${NAMES[c]} ${given[c]} (given)` : servers.find((s) => s.endpoint === endpoints[c])!.description));
  let stopped: Promise<void> | undefined;
  return {
    kind,
    kafkaBrokers: endpoints.kafka.split(','),
    schemaRegistryUrl: endpoints.registry,
    redisUrl: endpoints.redis,
    stop: () => (stopped ??= Promise.all(servers.map((s) => s.stop())).then(() => undefined)),
    describe: () => `${kind} stack: ${parts.join('; ')}`,
  };
}
