import { loadAuthSettings, loadRateLimitSettings, loadRejectedRateSettings, type AuthSettings, type RateLimitSettings, type RejectedRateSettings } from '../config/auth';
import { loadDeadLetterSettings, type DeadLetterSettings } from '../config/dead-letter-keys';
import { ConfigError, EnvReader, readLogLevel, type Env } from '../config/env';
import { loadKafkaSecurity, readPartnerTopicPrefix, readTopics, type KafkaSecurity } from '../config/kafka';
import type { TopicRole } from '../contract/topics';
import type { NonPortableRange } from '../domain/portin/eligibility';
import type { PortOutSettings } from '../domain/port-out/plan';

/**
 * The service's settings (npm start, src/entry/service.ts), read from the environment through the one
 * EnvReader (src/config/env.ts) and validated at start.
 */
export const DELIVERY_MODES = ['exactly-once', 'at-least-once'] as const;
export type Delivery = (typeof DELIVERY_MODES)[number];
/** KAFKA_COMMIT_INTERVAL_MS by delivery mode (docs/benchmarks.md: how they were chosen). */
const DEFAULT_COMMIT_INTERVAL_MS: Record<Delivery, number> = { 'exactly-once': 0, 'at-least-once': 200 };

export interface ServiceConfig {
  serviceName: string;
  kafka: {
    brokers: string[];
    clientId: string;
    topicPartitions: number;
    topicReplicationFactor: number;
    security: KafkaSecurity;
    /**
     * KAFKA_DELIVERY (default exactly-once): `exactly-once` writes the slices' outputs and their offsets in Kafka
     * transactions (read_committed readers see every reply, event and NP request once); `at-least-once` sends
     * them, then commits, and a redelivery may send them again (docs/reliability.md, docs/benchmarks.md).
     */
    delivery: Delivery;
    /**
     * Exactly once: how long a transaction stays open for slices still being processed (it commits at once when
     * none is). At least once: resolved offsets are committed at most this often (0: after every batch).
     */
    commitIntervalMs: number;
    /**
     * A worker silent this long leaves the group and its partitions go to the others. Without a group
     * instance id it is also what a restarted worker waits: it joins as a new member and the group waits
     * for the old one's session to end (docs/reliability.md).
     */
    sessionTimeoutMs: number;
    /**
     * KAFKA_GROUP_INSTANCE_ID: this worker's static membership (KIP-345), a name stable across its
     * restarts and unique in the group (a StatefulSet pod's name). A restarted worker with the same id
     * takes its partitions back at once instead of after the old member's session.
     */
    groupInstanceId?: string;
    heartbeatIntervalMs: number;
    /**
     * How old the clients' cluster metadata may grow before it is read again (the client also reads it
     * again after an error that says it is stale): bounds how long a partition whose leader moved
     * unnoticed is fetched or written at the old place.
     */
    metadataMaxAgeMs: number;
    /** How long a fetch waits for new records when there are none (the broker holds it this long). */
    fetchMaxWaitMs: number;
  };
  schemaRegistryUrl: string;
  /** The registry root events name in `ce_dataschema` (EVENT_DATASCHEMA_BASE_URL; default the registry URL without credentials). */
  eventDataSchemaBaseUrl: string;
  redis: {
    urls: string[];
    keyPrefix: string;
    cluster: boolean;
    /** Every Redis command fails (retriably) when not answered within this bound; see adapters/redis/client.ts. */
    commandTimeoutMs: number;
    connectTimeoutMs: number;
    /** Replicas that must acknowledge a slice's writes (WAIT) before its replies go out; 0: none waited for. */
    replicasToAck: number;
  };
  topics: Record<TopicRole, string>;
  /** Each partner's replies and events go to topics under `<prefix><partnerId>.` (src/contract/partner-topics.ts). */
  partnerTopicPrefix: string;
  /** Consumer group of the command workers. */
  groupId: string;
  /** The HTTP side port (/healthz, /readyz, /metrics); port 0 = no HTTP server. */
  observability: ObservabilityConfig;
  limits: {
    maxMessageBytes: number;
    /**
     * A fetched compressed batch inflating beyond this is not inflated: its records are dead-lettered
     * (UNDECOMPRESSABLE). Bounds what one compression bomb costs (src/adapters/kafka/bounded-codecs.ts).
     */
    maxDecompressedBatchBytes: number;
    idempotencyTtlSeconds: number;
    /** Commands whose record is older than idempotencyTtlSeconds minus this are refused (STALE_COMMAND). */
    staleCommandMarginSeconds: number;
    /** Changes a partner may have recorded within idempotencyTtlSeconds (outcome records in Redis); 0 = no quota. */
    partnerOutcomeQuota: number;
    handlerConcurrency: number;
    /** A fetched batch is handled in slices of at most this many records (src/pipeline/batch-worker.ts). */
    batchSliceRecords: number;
  };
  catalogFile: string;
  /** Who may send commands: JWT verification settings, or none (local work). */
  auth: AuthSettings;
  /** The key that seals what dead letters carry (docs/security.md). */
  deadLetters: DeadLetterSettings;
  /** The customer hierarchy: partners and their sub nodes (brands), docs/security.md. */
  customersFile: string;
  rateLimit: RateLimitSettings;
  /** Refused commands (UNAUTHORIZED, FORBIDDEN) answered or recorded per claimed partner; past it only counted. */
  rejectedRate: RejectedRateSettings;
  /** Port-in numbers that may never be ported in: inclusive prefix ranges with their reason code. */
  nonPortableRanges: NonPortableRange[];
  portin: PortInConfig;
  portout: PortOutConfig;
  logLevel: string;
  balance: BalanceSettings;
}

/** Balance ledger and bill-cycle renewal (docs/balance.md). */
export interface BalanceSettings {
  /** Ledger entries kept per subscription, one per operation (older ones are dropped). */
  ledgerRetention: number;
  renewal: { pollIntervalMs: number; batchSize: number; leaseMs: number; maxCatchUpCycles: number };
  /** Billing clock: `timeScale` billing ms pass per real ms after `clockOriginMs` (1 = wall clock; tests speed it up). */
  timeScale: number;
  clockOriginMs: number;
  /** A transfer debited this long ago and not settled is the pending-transfer sweeper's to finish (ms). */
  transferSweepAfterMs: number;
}

export interface ObservabilityConfig {
  httpPort: number;
  httpHost: string;
  /** /readyz answers from a result at most this old, so frequent probes cost one round of checks. */
  readinessCacheMs: number;
  /** Each readiness check (Kafka, registry, Redis) fails when it takes longer than this. */
  probeTimeoutMs: number;
}

function parseNonPortableRanges(reader: EnvReader): NonPortableRange[] {
  const raw = reader.optionalString('NON_PORTABLE_RANGES');
  if (raw === undefined) return [];
  // Format: prefix:code:description, separated by ";" — e.g. "1900:8B:PremiumRateNumber;1555:8D:FictionalNumber"
  return raw
    .split(';')
    .filter(Boolean)
    .map((entry) => {
      const [prefix, reasonCode, reasonDesc] = entry.split(':');
      if (!prefix || !/^[0-9]{1,15}$/.test(prefix) || !reasonCode || !reasonDesc) {
        throw new ConfigError('NON_PORTABLE_RANGES', 'entries prefix:code:description separated by ";"', raw);
      }
      return { prefix, reasonCode, reasonDesc };
    });
}

function loadBalanceSettings(reader: EnvReader, env: Env): BalanceSettings {
  const origin = reader.optionalString('BALANCE_CLOCK_ORIGIN');
  const clockOriginMs = origin === undefined ? Date.now() : Date.parse(origin);
  if (Number.isNaN(clockOriginMs)) throw new ConfigError('BALANCE_CLOCK_ORIGIN', 'an ISO 8601 date-time', env.BALANCE_CLOCK_ORIGIN);
  return {
    ledgerRetention: reader.integer('BALANCE_LEDGER_RETENTION', 1000, 1, 1_000_000),
    renewal: {
      pollIntervalMs: reader.integer('BALANCE_RENEWAL_POLL_MS', 1000, 10, 3_600_000),
      batchSize: reader.integer('BALANCE_RENEWAL_BATCH', 100, 1, 10_000),
      leaseMs: reader.integer('BALANCE_RENEWAL_LEASE_MS', 30_000, 100, 3_600_000),
      maxCatchUpCycles: reader.integer('BALANCE_RENEWAL_MAX_CATCH_UP', 12, 1, 1200),
    },
    timeScale: reader.integer('BALANCE_TIME_SCALE', 1, 1, 1_000_000_000),
    clockOriginMs,
    // At most an hour: far inside the idempotency window, so the debit the sweeper replays is still recorded.
    transferSweepAfterMs: reader.integer('BALANCE_TRANSFER_SWEEP_AFTER_MS', 60_000, 100, 3_600_000),
  };
}

/** The broker refuses sessions under 6 s (group.min.session.timeout.ms); heartbeats must fit in a session several times. */
function loadGroupTimings(reader: EnvReader): Pick<ServiceConfig['kafka'], 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'metadataMaxAgeMs' | 'fetchMaxWaitMs' | 'groupInstanceId'> {
  const sessionTimeoutMs = reader.integer('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000);
  const heartbeatIntervalMs = reader.integer('KAFKA_HEARTBEAT_INTERVAL_MS', 3_000, 100, Math.floor(sessionTimeoutMs / 3));
  const metadataMaxAgeMs = reader.integer('KAFKA_METADATA_MAX_AGE_MS', 10_000, 1_000, 300_000);
  const fetchMaxWaitMs = reader.integer('KAFKA_FETCH_MAX_WAIT_MS', 500, 10, 30_000);
  const groupInstanceId = reader.optionalString('KAFKA_GROUP_INSTANCE_ID');
  return { sessionTimeoutMs, heartbeatIntervalMs, metadataMaxAgeMs, fetchMaxWaitMs, ...(groupInstanceId ? { groupInstanceId } : {}) };
}

/**
 * PARTNER_OUTCOME_QUOTA defaults to what the partner's rate limit lets it record within the window
 * (100/s × 86,400 s = 8,640,000 by default), so no partner inside its rate is refused; set it lower to
 * bound what one partner holds in Redis (docs/security.md has the bytes per change).
 */
function loadLimits(reader: EnvReader, rateLimit: RateLimitSettings): ServiceConfig['limits'] {
  const idempotencyTtlSeconds = reader.integer('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 2);
  return {
    maxMessageBytes: reader.integer('MAX_MESSAGE_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
    maxDecompressedBatchBytes: reader.integer('MAX_DECOMPRESSED_BATCH_BYTES', 32 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    idempotencyTtlSeconds,
    staleCommandMarginSeconds: reader.integer('STALE_COMMAND_MARGIN_SECONDS', Math.min(3600, Math.floor(idempotencyTtlSeconds / 2)), 0, idempotencyTtlSeconds - 1),
    partnerOutcomeQuota: reader.integer('PARTNER_OUTCOME_QUOTA', Math.min(Number.MAX_SAFE_INTEGER, rateLimit.perSecond * idempotencyTtlSeconds), 0),
    handlerConcurrency: reader.integer('HANDLER_CONCURRENCY', 64, 1, 10000),
    batchSliceRecords: reader.integer('BATCH_SLICE_RECORDS', 256, 1, 100_000),
  };
}

export function loadConfig(env: Env = process.env): ServiceConfig {
  const reader = new EnvReader(env);
  const topics = readTopics(reader);
  const auth = loadAuthSettings(reader);
  const rateLimit = loadRateLimitSettings(reader);
  const delivery = reader.oneOf('KAFKA_DELIVERY', DELIVERY_MODES, 'exactly-once');
  return {
    serviceName: reader.string('SERVICE_NAME', 'wholesale-portin-balance'),
    kafka: {
      brokers: reader.brokers('KAFKA_BROKERS'),
      clientId: reader.string('KAFKA_CLIENT_ID', 'wholesale-worker'),
      topicPartitions: reader.integer('TOPIC_PARTITIONS', 3, 1, 1000),
      topicReplicationFactor: reader.integer('TOPIC_REPLICATION_FACTOR', 1, 1, 10),
      security: loadKafkaSecurity(reader),
      delivery,
      commitIntervalMs: reader.integer('KAFKA_COMMIT_INTERVAL_MS', DEFAULT_COMMIT_INTERVAL_MS[delivery], 0, 60_000),
      ...loadGroupTimings(reader),
    },
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    eventDataSchemaBaseUrl:
      reader.optionalString('EVENT_DATASCHEMA_BASE_URL') === undefined
        ? withoutCredentials(reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']))
        : reader.url('EVENT_DATASCHEMA_BASE_URL', ['http:', 'https:']),
    redis: {
      urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']),
      keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:'),
      cluster: reader.boolean('REDIS_CLUSTER', false),
      commandTimeoutMs: reader.integer('REDIS_COMMAND_TIMEOUT_MS', 2000, 10, 600_000),
      connectTimeoutMs: reader.integer('REDIS_CONNECT_TIMEOUT_MS', 5000, 10, 600_000),
      replicasToAck: reader.integer('REDIS_REPLICAS_TO_ACK', 0, 0, 16),
    },
    topics,
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    groupId: reader.string('KAFKA_GROUP_ID', 'wholesale-workers'),
    observability: {
      httpPort: reader.integer('HTTP_PORT', 0, 0, 65535),
      httpHost: reader.string('HTTP_HOST', '0.0.0.0'),
      readinessCacheMs: reader.integer('READINESS_CACHE_MS', 1000, 0, 60_000),
      probeTimeoutMs: reader.integer('READINESS_PROBE_TIMEOUT_MS', 2000, 100, 60_000),
    },
    limits: loadLimits(reader, rateLimit),
    catalogFile: reader.string('CATALOG_FILE', 'config/catalog.json'),
    auth,
    deadLetters: loadDeadLetterSettings(reader, auth.mode),
    customersFile: reader.string('CUSTOMERS_FILE', 'config/customers.json'),
    rateLimit,
    rejectedRate: loadRejectedRateSettings(reader),
    nonPortableRanges: parseNonPortableRanges(reader),
    portin: loadPortInConfig(reader),
    portout: loadPortOutConfig(reader),
    balance: loadBalanceSettings(reader, env),
    logLevel: readLogLevel(reader, 'info'),
  };
}

/** Port-out settings (see docs/port-out.md). */
export interface PortOutConfig extends PortOutSettings {
  /** How often the deadline sweeper looks for port-outs left unanswered past their deadline. */
  deadlineSweepIntervalMs: number;
}

function loadPortOutConfig(reader: EnvReader): PortOutConfig {
  return {
    validationWindowSeconds: reader.integer('PORTOUT_VALIDATION_WINDOW_SECONDS', 24 * 3600, 1, 30 * 24 * 3600),
    deadlineDecision: reader.oneOf('PORTOUT_DEADLINE_DECISION', ['APPROVE', 'REJECT'] as const, 'APPROVE'),
    deadlineSweepIntervalMs: reader.integer('PORTOUT_DEADLINE_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600 * 1000),
  };
}

/** Port-in lifecycle settings (see docs/portin.md). */
export interface PortInConfig {
  /** Business days from submission (or a supplement) to the desired due date: the earliest a partner may ask for. */
  dueIntervalBusinessDays: number;
  /** How far ahead (calendar days) a partner may ask for a due date. */
  dueDateMaxDaysAhead: number;
  /** A request left this long in RESOLUTION_REQUIRED or REJECTED is cancelled as expired (30 days). */
  abandonAfterSeconds: number;
  /** OPEN or DELAYED this long past the desired due date with no firm NP answer: abandoned (30 days). */
  noAnswerAfterDueSeconds: number;
  /** CONFIRMED this long past the confirmed due date with no ActivationComplete: abandoned (2 days). */
  activationGraceSeconds: number;
  /** CANCEL_PENDING this long with no answer of the NP side to the cancel: cancelled (3 days). */
  cancelAnswerTimeoutSeconds: number;
  expirySweepIntervalMs: number;
  /** How long a sweeper holds a due request before another sweeper may take it. */
  expiryLeaseMs: number;
  /** How long an unfinished CreatePortIn's claim on its partnerTransactionId holds off a retry. */
  claimLeaseMs: number;
  networkServiceProvider: string;
  localServiceProvider: string;
}

function loadPortInConfig(reader: EnvReader): PortInConfig {
  return {
    dueIntervalBusinessDays: reader.integer('PORTIN_DUE_INTERVAL_BUSINESS_DAYS', 1, 0, 30),
    dueDateMaxDaysAhead: reader.integer('PORTIN_DUE_DATE_MAX_DAYS_AHEAD', 90, 1, 365),
    abandonAfterSeconds: reader.integer('PORTIN_ABANDON_AFTER_SECONDS', 30 * 24 * 3600, 1),
    noAnswerAfterDueSeconds: reader.integer('PORTIN_NO_ANSWER_AFTER_DUE_SECONDS', 30 * 24 * 3600, 0),
    activationGraceSeconds: reader.integer('PORTIN_ACTIVATION_GRACE_SECONDS', 2 * 24 * 3600, 0),
    cancelAnswerTimeoutSeconds: reader.integer('PORTIN_CANCEL_ANSWER_TIMEOUT_SECONDS', 3 * 24 * 3600, 1),
    expirySweepIntervalMs: reader.integer('PORTIN_EXPIRY_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600 * 1000),
    expiryLeaseMs: reader.integer('PORTIN_EXPIRY_LEASE_MS', 60_000, 100, 24 * 3600 * 1000),
    claimLeaseMs: reader.integer('PORTIN_CLAIM_LEASE_MS', 30_000, 100, 24 * 3600 * 1000),
    networkServiceProvider: reader.string('PORTIN_NETWORK_SERVICE_PROVIDER', 'WHOLESALE-NNSP'),
    localServiceProvider: reader.string('PORTIN_LOCAL_SERVICE_PROVIDER', 'WHOLESALE-NLSP'),
  };
}

/** A URL with its user and password taken out: what may be shown to readers of the events. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString().replace(/\/+$/, '');
}
