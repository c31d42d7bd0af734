import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import { connectClusterProbe } from '../adapters/kafka/cluster-probe';
import type { KafkaConnection } from '../adapters/kafka/connection';
import type { ConsumerMembership, InboundRecord } from '../contract/transport';
import { startOpsServer, type OpsServer } from '../adapters/http/ops-server';
import { observeRedisCalls } from '../adapters/redis/call-timing';
import type { RedisClient } from '../adapters/redis/client';
import { probeRegistry } from '../adapters/registry/registry-probe';
import { ServiceMetrics } from '../observability/metrics';
import { createReadiness, withTimeout, type ReadinessReport } from '../observability/readiness';
import type { RecordOutcome } from '../pipeline/batch-worker';

/**
 * Wires metrics, readiness and the HTTP side port to the service's clients. The worker and the stores
 * only see plain callbacks (recordOutcome, messagesSent, the Redis call observer).
 */
export interface Observability {
  readonly metrics: ServiceMetrics;
  readiness: () => Promise<ReadinessReport>;
  /** The port the HTTP side port listens on, once started (undefined when it is off). */
  readonly httpPort: number | undefined;
  recordOutcome(outcome: RecordOutcome, durationMs: number, message: InboundRecord): void;
  /** Follows the worker consumer's group membership (readiness) and the lag of the topics it consumes. Call before it runs. */
  watchConsumer(consumer: ConsumerMembership, topics: readonly string[]): void;
  /** Reads how many partitions the batch worker holds behind a record that failed retriably. */
  watchHeldPartitions(read: () => number): void;
  /** Starts the HTTP side port (when configured). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ObservabilityDeps {
  config: ServiceConfig;
  log: Logger;
  kafka: KafkaConnection;
  redis: RedisClient;
  /** Overrides HTTP_PORT (0 = any free port); tests use it. */
  httpPort?: number;
}

export async function createObservability(deps: ObservabilityDeps): Promise<Observability> {
  const { config, log } = deps;
  const { probeTimeoutMs, readinessCacheMs, httpHost } = config.observability;
  const probe = await connectClusterProbe(deps.kafka);
  let consumerState: ConsumerMembership | undefined;
  let consumedTopics: readonly string[] = [];
  let heldPartitions = () => 0;
  const metrics = new ServiceMetrics({
    topics: config.topics,
    lag: () => withTimeout(probe.groupLag(config.groupId, consumedTopics), probeTimeoutMs, 'consumer lag'),
    assignedPartitions: () => consumerState?.assignedPartitions ?? 0,
    heldPartitions: () => heldPartitions(),
  });
  observeRedisCalls(deps.redis, metrics.redisCall);

  const readiness = createReadiness(
    {
      kafka: async () => ({ ok: true, detail: `${await probe.brokerCount()} broker(s)` }),
      consumer: async () => {
        if (!consumerState) return { ok: false, detail: 'the worker consumer is not running yet' };
        const { joined, lastEvent, memberId } = consumerState.state;
        const partitions = consumerState.assignedPartitions;
        if (!joined) return { ok: false, detail: `not in the consumer group ${config.groupId} (last event: ${lastEvent})` };
        // A member with no partitions (more instances than partitions) is a ready standby, not a failure.
        return { ok: true, detail: partitions > 0 ? `${partitions} partition(s) assigned` : 'joined, idle: no partition assigned', memberId, partitions };
      },
      registry: () => probeRegistry(config.schemaRegistryUrl, AbortSignal.timeout(probeTimeoutMs)),
      redis: async () => {
        const answer = await deps.redis.ping();
        return answer === 'PONG' ? { ok: true } : { ok: false, detail: `PING answered ${answer}` };
      },
    },
    { cacheMs: readinessCacheMs, timeoutMs: probeTimeoutMs },
  );

  const port = deps.httpPort ?? (config.observability.httpPort > 0 ? config.observability.httpPort : undefined);
  let server: OpsServer | undefined;
  return {
    metrics,
    readiness,
    get httpPort() {
      return server?.port;
    },
    // The age uses the wall clock, not the service's (possibly simulated) business clock.
    recordOutcome: (outcome, durationMs, message) =>
      metrics.commandHandled({ operation: outcome.operation, outcome: outcome.outcome, durationMs, ageMs: Date.now() - Number(message.timestamp), rejection: outcome.rejection }),
    watchConsumer: (consumer, topics) => {
      consumerState = consumer;
      consumedTopics = topics;
    },
    watchHeldPartitions: (read) => {
      heldPartitions = read;
    },
    start: async () => {
      if (port === undefined) return;
      server = await startOpsServer({
        port,
        host: httpHost,
        log,
        endpoints: {
          live: () => {
            const fatal = consumerState?.state.fatalError;
            return fatal ? { ok: false, detail: `the consumer stopped for good: ${fatal}` } : { ok: true };
          },
          readiness,
          metrics: async () => ({ contentType: metrics.contentType, body: await metrics.render() }),
        },
      });
      log.info({ port: server.port, host: httpHost }, 'HTTP side port listening: /healthz, /readyz, /metrics');
    },
    stop: async () => {
      await server?.close();
      await probe.disconnect();
    },
  };
}
