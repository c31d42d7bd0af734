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
import { oneConnection } from '../adapters/redis/one-connection';
import { replicatedWrites } from '../adapters/redis/replication';
import { createRedisAdmission, QUOTA_BUCKETS } from '../adapters/redis/admission';
import { registerContract } from '../adapters/registry/register-contract';
import { CommandProcessor } from '../pipeline/command-processor';
import type { RecordProcessor } from '../pipeline/batch-worker';
import { envelopeRules } from '../pipeline/envelope';
import type { InboundRecord, Outbound, RecordPosition, Refused } from '../contract/transport';
import { createEventEncoder, createEventPublisher } from '../pipeline/event-publisher';
import { commandConsumerSettings, createBatchWorker } from './batch-loop';
import { createBalanceComponents, createBalanceRenewals, createReservationExpiries, createTransferSweeps } from './balance';
import { createPortInComponents, createPortInExpiry } from './portin';
import { createNpResponseProcessor } from '../handlers/portin';
import { createPortOutNpProcessor } from '../handlers/port-out';
import { routeNpRecords } from '../handlers/np-records';
import { createPortOutComponents, createPortOutDeadlines } from './port-out';
import { createPortOrderComponents } from './port-orders';
import { withExpirySettlement, withOrderSettlement } from '../handlers/port-orders';
import { createNpResponseRecordProcessor } from '../pipeline/np-responses';
import { createAccessControl } from './access-control';
import { deadLetterSink } from './dead-letter-sink';
import { redactConfig } from '../config/redact';
import type { ServiceMetrics } from '../observability/metrics';
import type { ReadinessReport } from '../observability/readiness';
import { createObservability } from './observability';
import type { CustomerHierarchy } from '../security/hierarchy';
import { partnerCommandTopicOf, partnerTopics } from '../contract/partner-topics';
import { watchTopics } from '../adapters/kafka/topic-watch';
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
  /** The topics the worker group consumes now (shared and partners' commands, NP responses). */
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
 * Every topic the service writes to or reads: its own, and the six of each partner of the hierarchy (its
 * commands, replies and events). Created at start when missing; the legacy shared reply topics stay (AUTH_MODE=none
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

  const redis = createRedisClient({ ...config.redis, fenced: true });
  const balance = createBalanceComponents({ config, catalog, redis });
  const portin = createPortInComponents({ config, catalog, redis, subscriptions: balance.subscriptions });
  const portout = createPortOutComponents({ config, redis });
  const portOrders = createPortOrderComponents({ config, redis });
  const handlers = new Map(
    createHandlers({
      catalog,
      balances: balance.balances,
      reservations: balance.reservations,
      topupReferences: balance.topupReferences,
      transfers: balance.transfers,
      portin,
      portout,
      portOrders,
    }).map((h) => [h.commandRecord, h]),
  );
  const clock = options.clock ?? (() => new Date());
  const deadLetters = deadLetterSink(config);
  const routing = eventRouting(config, access.hierarchy);

  const observability = await createObservability({ config, log, kafka, redis, httpPort: options.httpPort });
  // Every message Kafka acknowledged is counted (events, dead letters), whoever sent it.
  const transport = await connectCommandTransport(kafka, commandConsumerSettings(config), {
    onSent: observability.metrics.messagesSent,
    onTransaction: observability.metrics.transactionEnded,
    ...(config.kafka.delivery === 'exactly-once' ? { exactlyOnce: { commitIntervalMs: config.kafka.commitIntervalMs } } : {}),
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
      return transport.transactions.send({
        messages,
        replaceRefused: (refused) => {
          throw refusal(refused);
        },
      });
    }
    const refused = await sender.send(messages);
    // Our own event topics: a refusal is a deployment fault (topic missing, ACL), not one event's; the caller retries.
    if (refused.length > 0) throw refusal(refused);
  });

  const processors = new Map<string, RecordProcessor>();
  for (const [role, { domain }] of Object.entries(COMMAND_TOPICS) as [keyof typeof COMMAND_TOPICS, { domain: Domain }][]) {
    processors.set(config.topics[role], (message: InboundRecord, position: RecordPosition) => processor.process(message, position, domain));
  }
  // NP responses drive the port-in and port-out lifecycles: consumed by the same group, no reply
  processors.set(
    config.topics.npResponses,
    createNpResponseRecordProcessor({
      codec,
      process: routeNpRecords(withOrderSettlement(createNpResponseProcessor(portin), { ...portOrders, portin }), createPortOutNpProcessor(portout)),
      encode: encodeEvents,
      deadLetters,
      clock,
      log: log.child({ component: 'np-responses' }),
      isRetriable: isRedisUnavailable,
    }),
  );
  // Every partner's own command topics, as `admin partner add` provisions them: looked for again every
  // KAFKA_METADATA_MAX_AGE_MS, so a partner provisioned while the worker runs is consumed without a restart.
  const sharedTopics = [...processors.keys()];
  const followPartnerCommandTopics = (topics: readonly string[]) => {
    for (const topic of [...processors.keys()]) if (!sharedTopics.includes(topic) && !topics.includes(topic)) processors.delete(topic);
    for (const topic of topics) {
      const { domain } = COMMAND_TOPICS[partnerCommandTopicOf(config.partnerTopicPrefix, topic)!.role];
      if (!processors.has(topic)) processors.set(topic, (message: InboundRecord, position: RecordPosition) => processor.process(message, position, domain));
    }
    observability.watchConsumer(consumer.membership, [...processors.keys()]);
  };
  const partnerCommandTopics = await watchTopics(kafka, {
    matches: (topic) => partnerCommandTopicOf(config.partnerTopicPrefix, topic) !== undefined,
    intervalMs: config.kafka.metadataMaxAgeMs,
    onChange: async (topics) => {
      log.info({ topics }, "partners' command topics changed");
      followPartnerCommandTopics(topics);
      await consumer.subscribe([...processors.keys()]);
    },
  });
  followPartnerCommandTopics(partnerCommandTopics.initial);
  await consumer.subscribe([...processors.keys()]);

  const logOutcome = commandOutcomeLog(log);
  // WAIT's own bound stays under the command timeout, so a replica that does not answer fails the slice retriably
  const replicated = config.redis.replicasToAck > 0 ? replicatedWrites(redis, config.redis.replicasToAck, Math.ceil(config.redis.commandTimeoutMs / 2)) : undefined;
  const worker = createBatchWorker(
    config,
    transport,
    processors,
    log,
    (outcome, position, durationMs, message) => {
      observability.recordOutcome(outcome, durationMs, message);
      logOutcome(outcome, position, durationMs);
    },
    { ...(replicated ? { replicated } : {}), sliceScope: oneConnection(redis) },
  );
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
  const reservationExpiries = createReservationExpiries({ config, redis, publish, log });
  reservationExpiries.start();
  const transferSweeps = createTransferSweeps({ config, redis, transfers: balance.transfers, publish, log });
  transferSweeps.start();
  // a number the timer cancels may be an order's last to settle: its SETTLED goes with it
  const expiry = createPortInExpiry({ portin, config, publish: withExpirySettlement(publish, { ...portOrders, portin }, clock), log, clock });
  expiry.start();
  const portOutDeadlines = createPortOutDeadlines({ portout, config, publish, log, clock });
  portOutDeadlines.start();
  await observability.start();

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await partnerCommandTopics.stop();
      await renewals.stop();
      await reservationExpiries.stop();
      await transferSweeps.stop();
      await expiry.stop();
      await portOutDeadlines.stop();
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
    get consumedTopics() {
      return [...processors.keys()];
    },
    metrics: observability.metrics,
    readiness: observability.readiness,
    get httpPort() {
      return observability.httpPort;
    },
    stop,
  };
}
