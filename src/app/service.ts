import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import type { Catalog } from '../domain/catalog/catalog';
import { loadCatalogFile } from '../adapters/catalog/catalog-file';
import { createHandlers } from '../handlers';
import { COMMAND_TOPICS, type Domain } from '../contract/topics';
import { ensureTopicsExist } from '../adapters/kafka/admin-session';
import { connectCommandTransport } from '../adapters/kafka/command-transport';
import type { KafkaConnection } from '../adapters/kafka/connection';
import { AvroCodec } from '../adapters/registry/avro-codec';
import { createRedisClient, isRedisUnavailable, type RedisClient } from '../adapters/redis/client';
import { createRedisAdmission, QUOTA_BUCKETS } from '../adapters/redis/admission';
import { registerContract } from '../adapters/registry/register-contract';
import { CommandProcessor } from '../pipeline/command-processor';
import type { RecordProcessor } from '../pipeline/batch-worker';
import { envelopeRules } from '../pipeline/envelope';
import type { InboundRecord, Outbound, RecordPosition, Refused } from '../contract/transport';
import { createEventEncoder, createEventPublisher } from '../pipeline/event-publisher';
import { commandConsumerSettings, createBatchWorker } from './batch-loop';
import { createBalanceComponents, createBalanceRenewals } from './balance';
import { createPortInComponents, createPortInExpiry } from './portin';
import { createNpResponseProcessor } from '../handlers/portin';
import { createNpResponseRecordProcessor } from '../pipeline/np-responses';
import { createAccessControl } from './access-control';
import { deadLetterSink } from './dead-letter-sink';
import { redactConfig } from '../config/redact';
import type { ServiceMetrics } from '../observability/metrics';
import type { ReadinessReport } from '../observability/readiness';
import { createObservability } from './observability';
import type { CustomerHierarchy } from '../security/hierarchy';
import { partnerTopics } from '../contract/partner-topics';
import type { EventRouting } from '../pipeline/event-routes';
import { commandOutcomeLog } from '../observability/outcome-log';

/**
 * The composition root: builds every adapter from the configuration, hands them to the handlers and the
 * worker, and returns one handle to stop it all. Entry points (worker, dev mode, tests) only call this.
 */
export interface RunningService {
  readonly redis: RedisClient;
  readonly catalog: Catalog;
  /** Resolves once the consumer has joined its group and been assigned partitions. */
  readonly joined: Promise<void>;
  /** The topics the worker group consumes (commands and NP responses). */
  readonly consumedTopics: readonly string[];
  readonly metrics: ServiceMetrics;
  readiness(): Promise<ReadinessReport>;
  /** Where the HTTP side port listens (/healthz, /readyz, /metrics); undefined when it is off. */
  readonly httpPort: number | undefined;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  clock?: () => Date;
  /** Overrides HTTP_PORT; 0 = any free port (tests). */
  httpPort?: number;
  /**
   * Called when the consumer stopped for good (an error consuming again cannot cure: access refused):
   * the process would otherwise live on consuming nothing. The worker entry point exits non-zero.
   */
  onFatal?: (error: Error) => void;
}

export function loadCatalog(file: string): Catalog {
  return loadCatalogFile(file);
}

/**
 * Every topic the service writes to or reads: its own, and the four of each partner of the hierarchy (its
 * replies and events). Created at start when missing; the legacy shared reply topics stay (AUTH_MODE=none
 * answers there for a node the hierarchy does not know).
 */
export function serviceTopics(config: ServiceConfig, hierarchy: CustomerHierarchy | undefined): string[] {
  const partners = hierarchy?.partners() ?? [];
  return [...Object.values(config.topics), ...partners.flatMap((partner) => Object.values(partnerTopics(config.partnerTopicPrefix, partner.id)))];
}

/** Who gets a copy of an event: the partner root of the node owning it (docs/security.md). */
export const eventRouting = (config: ServiceConfig, hierarchy: CustomerHierarchy | undefined): EventRouting => ({
  topics: config.topics,
  partnerTopicPrefix: config.partnerTopicPrefix,
  partnerOf: (owner) => hierarchy?.node(owner)?.partnerId,
  dataSchemaBaseUrl: config.eventDataSchemaBaseUrl,
});

/** How the service reaches Kafka: its brokers, client id and transport security, logging into its log. */
export const kafkaConnection = (config: ServiceConfig, log: Logger): KafkaConnection => ({
  brokers: config.kafka.brokers,
  clientId: config.kafka.clientId,
  log,
  security: config.kafka.security,
});

export async function startService(config: ServiceConfig, log: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  log.info({ config: redactConfig(config) }, 'effective configuration');
  const catalog = loadCatalog(config.catalogFile);
  const access = createAccessControl(config, log);
  const kafka = kafkaConnection(config, log);
  const created = await ensureTopicsExist(kafka, serviceTopics(config, access.hierarchy), config.kafka.topicPartitions, config.kafka.topicReplicationFactor);
  if (created.length > 0) log.info({ topics: created }, 'created topics');
  const codec = new AvroCodec(config.schemaRegistryUrl);
  const registered = await registerContract(codec, config.topics);
  log.info({ subjects: registered }, 'registered the contract schemas');

  const redis = createRedisClient(config.redis);
  const balance = createBalanceComponents({ config, catalog, redis });
  const portin = createPortInComponents({ config, catalog, redis, subscriptions: balance.subscriptions });
  const handlers = new Map(createHandlers({ catalog, balances: balance.balances, portin }).map((h) => [h.commandRecord, h]));
  const clock = options.clock ?? (() => new Date());
  const deadLetters = deadLetterSink(config);
  const routing = eventRouting(config, access.hierarchy);

  const observability = await createObservability({ config, log, kafka, redis, httpPort: options.httpPort });
  // Every message Kafka acknowledged is counted (events, dead letters), whoever sent it.
  const transport = await connectCommandTransport(kafka, commandConsumerSettings(config), {
    onSent: observability.metrics.messagesSent,
    exactlyOnce: config.kafka.delivery === 'exactly-once',
  });
  const { consumer, sender } = transport;
  const processor = new CommandProcessor({
    authenticator: access.authenticator,
    authorizer: access.authorizer,
    rejectedBudget: access.rejectedBudget,
    admission: createRedisAdmission(redis, config.redis.keyPrefix, config.rateLimit, {
      quota: config.limits.partnerOutcomeQuota,
      windowSeconds: config.limits.idempotencyTtlSeconds,
      buckets: QUOTA_BUCKETS,
    }),
    codec,
    handlers,
    topics: config.topics,
    deadLetters,
    routing,
    partitionCount: transport.partitionCount,
    envelopeRules: envelopeRules(config.topics, config.partnerTopicPrefix),
    maxMessageBytes: config.limits.maxMessageBytes,
    maxCommandAgeMs: (config.limits.idempotencyTtlSeconds - config.limits.staleCommandMarginSeconds) * 1000,
    serviceName: config.serviceName,
    clock,
    log,
    isRetriable: isRedisUnavailable,
  });
  consumer.onFatal((error) => {
    log.fatal({ err: error }, 'the consumer stopped for good');
    options.onFatal?.(error);
  });
  const encodeEvents = createEventEncoder({ codec, routing, serviceName: config.serviceName });
  // The schedulers' events go through the same door as the batch loop's outputs (in a transaction of their own).
  const publish = createEventPublisher(encodeEvents, async (messages) => {
    const refusal = (refused: Refused<Outbound>[]) => new Error(`Kafka refused ${refused.length} event(s): ${refused[0].reason}`);
    if (transport.transactions) {
      return transport.transactions.send({ messages, replaceRefused: (refused) => { throw refusal(refused); } });
    }
    const refused = await sender.send(messages);
    // Our own event topics: a refusal is a deployment fault (topic missing, ACL), not one event's; the caller retries.
    if (refused.length > 0) throw refusal(refused);
  });

  const processors = new Map<string, RecordProcessor>();
  for (const [role, { domain }] of Object.entries(COMMAND_TOPICS) as [keyof typeof COMMAND_TOPICS, { domain: Domain }][]) {
    processors.set(config.topics[role], (message: InboundRecord, position: RecordPosition) => processor.process(message, position, domain));
  }
  // NP responses drive the port-in lifecycle: consumed by the same group, no reply
  processors.set(
    config.topics.npResponses,
    createNpResponseRecordProcessor({
      codec,
      process: createNpResponseProcessor(portin),
      encode: encodeEvents,
      deadLetters,
      clock,
      log: log.child({ component: 'np-responses' }),
      isRetriable: isRedisUnavailable,
    }),
  );
  await consumer.subscribe([...processors.keys()]);
  observability.watchConsumer(consumer.membership, [...processors.keys()]);

  const logOutcome = commandOutcomeLog(log);
  const worker = createBatchWorker(config, transport, processors, log, (outcome, position, durationMs, message) => {
    observability.recordOutcome(outcome, durationMs, message);
    logOutcome(outcome, position, durationMs);
  });
  observability.watchHeldPartitions(() => worker.heldPartitions);
  await worker.run();
  const renewals = createBalanceRenewals({
    config,
    catalog,
    redis,
    clock: balance.clock,
    publish,
    log,
  });
  renewals.start();
  const expiry = createPortInExpiry({ portin, config, publish, log, clock });
  expiry.start();
  await observability.start();

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await renewals.stop();
      await expiry.stop();
      await worker.stop();
      await transport.close();
      await observability.stop();
      await redis.quit().catch(() => redis.disconnect());
      log.info('service stopped');
    })());
  return {
    redis,
    catalog,
    joined: consumer.joined,
    consumedTopics: [...processors.keys()],
    metrics: observability.metrics,
    readiness: observability.readiness,
    get httpPort() {
      return observability.httpPort;
    },
    stop,
  };
}
