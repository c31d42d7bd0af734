import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TopicRole } from '../handlers/types';
import { DEFAULT_KAFKA_VERSION } from '../stack/versions';
import { DEFAULT_PARTNER_TOPIC_PREFIX } from '../contract/partner-topics';
import {
  loadAuthSettings,
  loadDeadLetterKeyring,
  loadDeadLetterSettings,
  loadKafkaSecurity,
  loadRateLimitSettings,
  type AuthSettings,
  type DeadLetterKeySetting,
  type DeadLetterSettings,
  type KafkaSecurity,
  type RateLimitSettings,
  loadRejectedRateSettings,
  type RejectedRateSettings,
} from './security';

/**
 * The one module that reads configuration. Every setting comes from the environment, is validated at
 * start, and a missing or bad value stops the process with one line naming the variable and what it
 * expects (ConfigError). Nothing else in src/ reads process.env.
 */
export class ConfigError extends Error {
  constructor(readonly variable: string, readonly expected: string, readonly got: string | undefined) {
    super(`${variable}: expected ${expected}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function isUrl(raw: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

export interface ServiceConfig {
  serviceName: string;
  kafka: {
    brokers: string[];
    clientId: string;
    topicPartitions: number;
    topicReplicationFactor: number;
    security: KafkaSecurity;
    /** Resolved offsets are committed at most this often (0: after every batch); see BatchWorker. */
    commitIntervalMs: number;
    /**
     * A worker silent this long leaves the group and its partitions go to the others. Also what a worker
     * waits after a Kafka outage: its crashed-and-restarted consumer joins as a new member and the group
     * waits for the old one's session to end (docs/reliability.md).
     */
    sessionTimeoutMs: number;
    heartbeatIntervalMs: number;
    /**
     * How old the consumer's cluster metadata may grow. kafkajs fetches a partition only from the leader its
     * metadata names and refreshes it only when this age passes: after a broker dies, a partition whose new
     * leader it has not seen is not fetched at all until then (measured: stalled for good within a 2 min
     * wait at kafkajs' 5 min default). This bounds that stall.
     */
    metadataMaxAgeMs: number;
    /**
     * How long a fetch waits for new records, and how long kafkajs sleeps when every partition of a broker is
     * paused: a partition held behind a record that failed retriably is fetched again at most this much
     * after its backoff ends (kafkajs' 5 s default made every retry after a Redis outage wait up to 5 s).
     */
    fetchMaxWaitMs: number;
  };
  schemaRegistryUrl: string;
  redis: {
    urls: string[];
    keyPrefix: string;
    cluster: boolean;
    /** Every Redis command fails (retriably) when not answered within this bound; see adapters/redis/client.ts. */
    commandTimeoutMs: number;
    connectTimeoutMs: number;
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
}

export interface ObservabilityConfig {
  httpPort: number;
  httpHost: string;
  /** /readyz answers from a result at most this old, so frequent probes cost one round of checks. */
  readinessCacheMs: number;
  /** Each readiness check (Kafka, registry, Redis) fails when it takes longer than this. */
  probeTimeoutMs: number;
}

export interface NonPortableRange {
  prefix: string;
  reasonCode: string;
  reasonDesc: string;
}

const TOPIC_DEFAULTS: Record<TopicRole, [variable: string, name: string]> = {
  portinCommands: ['TOPIC_PORTIN_COMMANDS', 'wholesale.portin.commands.v1'],
  portinReplies: ['TOPIC_PORTIN_REPLIES', 'wholesale.portin.replies.v1'],
  balanceCommands: ['TOPIC_BALANCE_COMMANDS', 'wholesale.balance.commands.v1'],
  balanceReplies: ['TOPIC_BALANCE_REPLIES', 'wholesale.balance.replies.v1'],
  portinEvents: ['TOPIC_PORTIN_EVENTS', 'wholesale.portin.events.v1'],
  balanceEvents: ['TOPIC_BALANCE_EVENTS', 'wholesale.balance.events.v1'],
  deadLetters: ['TOPIC_DEAD_LETTERS', 'wholesale.commands.dlq.v1'],
  npRequests: ['TOPIC_NP_REQUESTS', 'np.portin.requests.v1'],
  npResponses: ['TOPIC_NP_RESPONSES', 'np.portin.responses.v1'],
};

export const TOPIC_VARIABLES: Readonly<Record<TopicRole, string>> = Object.fromEntries(
  Object.entries(TOPIC_DEFAULTS).map(([role, [variable]]) => [role, variable]),
) as Record<TopicRole, string>;

/** Reads typed values from an environment, throwing ConfigError on the first bad one. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  string(variable: string, fallback?: string): string {
    const value = this.env[variable];
    if (value === undefined || value === '') {
      if (fallback === undefined) throw new ConfigError(variable, 'a non-empty value', value);
      return fallback;
    }
    return value;
  }

  optionalString(variable: string): string | undefined {
    const value = this.env[variable];
    return value === undefined || value === '' ? undefined : value;
  }

  integer(variable: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(variable, `a whole number from ${min} to ${max}`, raw);
    }
    return value;
  }

  boolean(variable: string, fallback: boolean): boolean {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(variable, 'true or false', raw);
  }

  matching(variable: string, pattern: RegExp, expected: string, fallback: string): string {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (!pattern.test(raw)) throw new ConfigError(variable, expected, raw);
    return raw;
  }

  oneOf<T extends string>(variable: string, allowed: readonly T[], fallback: T): T {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(variable, `one of ${allowed.join(', ')}`, raw);
    return raw as T;
  }

  url(variable: string, protocols: readonly string[]): string {
    const raw = this.string(variable);
    if (!isUrl(raw, protocols)) throw new ConfigError(variable, `a URL (${protocols.join(' or ')})`, raw);
    return raw;
  }

  /** One URL, or several separated by commas (the nodes of a cluster). */
  urlList(variable: string, protocols: readonly string[]): string[] {
    const raw = this.string(variable);
    const urls = raw.split(',').map((u) => u.trim()).filter(Boolean);
    if (urls.length === 0 || !urls.every((u) => isUrl(u, protocols))) {
      throw new ConfigError(variable, `comma-separated URLs (${protocols.join(' or ')})`, raw);
    }
    return urls;
  }

  brokers(variable: string): string[] {
    const raw = this.string(variable);
    const brokers = raw.split(',').map((b) => b.trim()).filter(Boolean);
    if (brokers.length === 0 || brokers.some((b) => !/^[^\s:]+:\d{1,5}$/.test(b))) {
      throw new ConfigError(variable, 'a comma-separated list of host:port', raw);
    }
    return brokers;
  }
}

function parseNonPortableRanges(reader: EnvReader): NonPortableRange[] {
  const raw = reader.optionalString('NON_PORTABLE_RANGES');
  if (raw === undefined) return [];
  // Format: prefix:code:description, separated by ";" — e.g. "1900:8B:PremiumRateNumber;1555:8D:FictionalNumber"
  return raw.split(';').filter(Boolean).map((entry) => {
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
  };
}

/** The broker refuses sessions under 6 s (group.min.session.timeout.ms); heartbeats must fit in a session several times. */
function loadGroupTimings(reader: EnvReader): Pick<ServiceConfig['kafka'], 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'metadataMaxAgeMs' | 'fetchMaxWaitMs'> {
  const sessionTimeoutMs = reader.integer('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000);
  const heartbeatIntervalMs = reader.integer('KAFKA_HEARTBEAT_INTERVAL_MS', 3_000, 100, Math.floor(sessionTimeoutMs / 3));
  const metadataMaxAgeMs = reader.integer('KAFKA_METADATA_MAX_AGE_MS', 10_000, 1_000, 300_000);
  const fetchMaxWaitMs = reader.integer('KAFKA_FETCH_MAX_WAIT_MS', 500, 10, 30_000);
  return { sessionTimeoutMs, heartbeatIntervalMs, metadataMaxAgeMs, fetchMaxWaitMs };
}

/**
 * A replay older than the outcome records (a reset or renamed consumer group, offsets expired after a long
 * stop) would apply its changes again: such commands are refused. The margin keeps the refusal ahead of the
 * records' expiry (producer clocks, Redis expiring keys a little late); the window is at least 1 s.
 */
/** Topic names by role; each variable falls back to the contract's default name. */
export function readTopics(reader: EnvReader): Record<TopicRole, string> {
  return Object.fromEntries(
    Object.entries(TOPIC_DEFAULTS).map(([role, [variable, name]]) => [role, reader.string(variable, name)]),
  ) as Record<TopicRole, string>;
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
  };
}

export function loadConfig(env: Env = process.env): ServiceConfig {
  const reader = new EnvReader(env);
  const topics = readTopics(reader);
  const auth = loadAuthSettings(reader);
  const rateLimit = loadRateLimitSettings(reader);
  return {
    serviceName: reader.string('SERVICE_NAME', 'wholesale-portin-balance'),
    kafka: {
      brokers: reader.brokers('KAFKA_BROKERS'),
      clientId: reader.string('KAFKA_CLIENT_ID', 'wholesale-worker'),
      topicPartitions: reader.integer('TOPIC_PARTITIONS', 3, 1, 1000),
      topicReplicationFactor: reader.integer('TOPIC_REPLICATION_FACTOR', 1, 1, 10),
      security: loadKafkaSecurity(reader),
      commitIntervalMs: reader.integer('KAFKA_COMMIT_INTERVAL_MS', 200, 0, 60_000),
      ...loadGroupTimings(reader),
    },
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    redis: {
      urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']),
      keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:'),
      cluster: reader.boolean('REDIS_CLUSTER', false),
      commandTimeoutMs: reader.integer('REDIS_COMMAND_TIMEOUT_MS', 2000, 10, 600_000),
      connectTimeoutMs: reader.integer('REDIS_CONNECT_TIMEOUT_MS', 5000, 10, 600_000),
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
    balance: loadBalanceSettings(reader, env),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  };
}

/** Port-in lifecycle settings (see docs/portin.md). */
export interface PortInConfig {
  /** Business days from submission (or a supplement) to the desired due date. */
  dueIntervalBusinessDays: number;
  /** A request left this long in RESOLUTION_REQUIRED or REJECTED is cancelled as expired (30 days). */
  abandonAfterSeconds: number;
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
    abandonAfterSeconds: reader.integer('PORTIN_ABANDON_AFTER_SECONDS', 30 * 24 * 3600, 1),
    expirySweepIntervalMs: reader.integer('PORTIN_EXPIRY_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600 * 1000),
    expiryLeaseMs: reader.integer('PORTIN_EXPIRY_LEASE_MS', 60_000, 100, 24 * 3600 * 1000),
    claimLeaseMs: reader.integer('PORTIN_CLAIM_LEASE_MS', 30_000, 100, 24 * 3600 * 1000),
    networkServiceProvider: reader.string('PORTIN_NETWORK_SERVICE_PROVIDER', 'WHOLESALE-NNSP'),
    localServiceProvider: reader.string('PORTIN_LOCAL_SERVICE_PROVIDER', 'WHOLESALE-NLSP'),
  };
}

/** The NP simulator (npm run np-sim): the Kafka and registry endpoints, its topics and its clock. */
export interface NpSimulatorConfig {
  kafka: { brokers: string[]; clientId: string; security: KafkaSecurity };
  schemaRegistryUrl: string;
  topics: { npRequests: string; npResponses: string };
  groupId: string;
  /** Simulated seconds per real second: 1 plays in real time, 100000 runs a one-day port in under a second. */
  timeScale: number;
  logLevel: string;
}

export function loadNpSimulatorConfig(env: Env = process.env): NpSimulatorConfig {
  const reader = new EnvReader(env);
  return {
    kafka: { brokers: reader.brokers('KAFKA_BROKERS'), clientId: reader.string('NP_SIM_CLIENT_ID', 'np-simulator'), security: loadKafkaSecurity(reader) },
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    topics: {
      npRequests: reader.string(TOPIC_DEFAULTS.npRequests[0], TOPIC_DEFAULTS.npRequests[1]),
      npResponses: reader.string(TOPIC_DEFAULTS.npResponses[0], TOPIC_DEFAULTS.npResponses[1]),
    },
    groupId: reader.string('NP_SIM_GROUP_ID', 'np-simulator'),
    timeScale: reader.integer('NP_SIM_TIME_SCALE', 1, 1, 10_000_000),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  };
}

/**
 * Settings of a requester (the client library, the CLI, the demo): the same variables as the service for
 * Kafka, the registry and the topic names, so one environment drives both sides. No Redis: a requester
 * never touches the service's state.
 */
export interface ClientConfig {
  /** Read like the service's, with the same Kafka TLS/SASL variables. */
  kafka: { brokers: string[]; clientId: string; security: KafkaSecurity };
  schemaRegistryUrl: string;
  topics: Record<TopicRole, string>;
  /** The partner namespace prefix of reply and event topics, as the service's. */
  partnerTopicPrefix: string;
  /**
   * The partner acted for (its reply and event topics, its consumer groups' prefix). Unset: the partner root
   * of `wholesaleCustomerId` in `customersFile` when that file knows it, else the legacy shared reply topics.
   */
  partnerId?: string;
  /** The customer hierarchy the partner of `wholesaleCustomerId` is looked up in (read only when needed). */
  customersFile: string;
  /** Default per-call reply timeout (Spring's ReplyingKafkaTemplate default is 5 s). */
  requestTimeoutMs: number;
  /** wholesaleCustomerId header sent when a call names none (the caller's node of the customer hierarchy). */
  wholesaleCustomerId?: string;
  /** A bearer token sent with every command, for callers without a token provider of their own (the CLI). */
  token?: string;
  logLevel: string;
}

/** `overrides` (e.g. CLI flags, as variable → value) win over the environment. */
export function loadClientConfig(overrides: Env = {}, env: Env = process.env): ClientConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    kafka: { brokers: reader.brokers('KAFKA_BROKERS'), clientId: reader.string('CLIENT_ID', 'wholesale-client'), security: loadKafkaSecurity(reader) },
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    topics: readTopics(reader),
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    partnerId: reader.optionalString('WHOLESALE_PARTNER_ID'),
    customersFile: reader.string('CUSTOMERS_FILE', 'config/customers.json'),
    requestTimeoutMs: reader.integer('CLIENT_TIMEOUT_MS', 5000, 1, 3_600_000),
    wholesaleCustomerId: reader.optionalString('WHOLESALE_CUSTOMER_ID'),
    token: reader.optionalString('WHOLESALE_TOKEN'),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'warn'),
  };
}

/** `wholesale admin …` (provisioning partners and ACLs): the Kafka connection and the names it provisions. */
export interface AdminConfig {
  /** Read like the service's, with the same Kafka TLS/SASL variables (the admin principal's credentials). */
  kafka: { brokers: string[]; clientId: string; security: KafkaSecurity; topicPartitions: number; topicReplicationFactor: number };
  topics: Record<TopicRole, string>;
  /** The service's consumer group (KAFKA_GROUP_ID), for `admin service-acls`. */
  groupId: string;
  partnerTopicPrefix: string;
  logLevel: string;
}

/** A topic-name prefix ending in a dot: `<prefix><partnerId>.` must stay a legal topic name. */
export function readPartnerTopicPrefix(reader: EnvReader): string {
  const prefix = reader.string('PARTNER_TOPIC_PREFIX', DEFAULT_PARTNER_TOPIC_PREFIX);
  if (!/^[A-Za-z0-9._-]{1,100}\.$/.test(prefix)) throw new ConfigError('PARTNER_TOPIC_PREFIX', 'letters, digits, . _ - ending in a dot', prefix);
  return prefix;
}

/** `overrides` (the CLI's flags, as variable → value) win over the environment. */
export function loadAdminConfig(overrides: Env = {}, env: Env = process.env): AdminConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    kafka: {
      brokers: reader.brokers('KAFKA_BROKERS'),
      clientId: reader.string('ADMIN_CLIENT_ID', 'wholesale-admin'),
      security: loadKafkaSecurity(reader),
      topicPartitions: reader.integer('TOPIC_PARTITIONS', 3, 1, 1000),
      topicReplicationFactor: reader.integer('TOPIC_REPLICATION_FACTOR', 1, 1, 10),
    },
    topics: readTopics(reader),
    groupId: reader.string('KAFKA_GROUP_ID', 'wholesale-workers'),
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'warn'),
  };
}

/** `wholesale admin dlq decrypt`: where the dead letters are and the keys that open them. */
export interface DlqAdminConfig {
  kafka: { brokers: string[]; clientId: string; security: KafkaSecurity };
  /** When given, decoded Avro is printed too (the bytes are printed either way). */
  schemaRegistryUrl?: string;
  deadLetterTopic: string;
  keys: DeadLetterKeySetting[];
}

export function loadDlqAdminConfig(overrides: Env = {}, env: Env = process.env): DlqAdminConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    kafka: { brokers: reader.brokers('KAFKA_BROKERS'), clientId: reader.string('ADMIN_CLIENT_ID', 'wholesale-admin'), security: loadKafkaSecurity(reader) },
    schemaRegistryUrl: reader.optionalString('SCHEMA_REGISTRY_URL') === undefined ? undefined : reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    deadLetterTopic: reader.string(TOPIC_DEFAULTS.deadLetters[0], TOPIC_DEFAULTS.deadLetters[1]),
    keys: loadDeadLetterKeyring(reader),
  };
}

/** Settings of the stack provider (src/stack): where the dev and test servers come from. */
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
      schemaRegistryUrl:
        reader.optionalString('SCHEMA_REGISTRY_URL') === undefined ? undefined : reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
      // One URL, or the nodes of a Redis Cluster separated by commas (as the service reads it).
      redisUrl:
        reader.optionalString('REDIS_URL') === undefined ? undefined : reader.urlList('REDIS_URL', ['redis:', 'rediss:']).join(','),
    },
    kind: reader.oneOf('STACK_KIND', ['auto', 'containers', 'local'], 'auto'),
    runtimeProbeMs: reader.integer('STACK_RUNTIME_PROBE_MS', 3000, 100, 60000),
    cacheDir: reader.string('STACK_CACHE_DIR', join(cacheHome, 'wholesale-stack')),
    keepFiles: reader.boolean('STACK_KEEP_FILES', false),
    kafkaVersion: reader.matching('STACK_KAFKA_VERSION', /^[3-9]\.\d+\.\d+$/, 'a Kafka release such as 4.4.0 or 3.9.1', DEFAULT_KAFKA_VERSION),
  };
}

/** `npm run bench` (bench/run.ts): what to measure and for how long (docs/benchmarks.md). */
export interface BenchConfig {
  /** BENCH_QUICK: a shortened run (short phases, fewer scenarios) to smoke-test the benchmark in a minute or two. */
  quick: boolean;
  /** Active subscriptions of the main workload. */
  subscriptions: number;
  /** Larger populations the subscription-growth scenario fills up to, in order (empty: skipped). */
  growthSteps: number[];
  /** Partitions of the command and reply topics in the main scenario. */
  partitions: number;
  /** Offered loads (commands/s) of the open-loop latency runs. */
  rates: number[];
  /** Calls in flight in the closed-loop saturation runs. */
  inFlight: number;
  /** Seconds measured per phase (after a warm-up of a third of it). */
  phaseSeconds: number;
  /** Scenarios to leave out: any of echo, redis, scaling, growth, forged. */
  skip: string[];
  /** Offered rate of forged-token records in the forged-flood scenario (valid traffic beside it at 500/s). */
  forgedRate: number;
  /** When set, the service worker runs with --cpu-prof and writes its profile here. */
  cpuProfileDir?: string;
  /** Where the results (JSON and the printed tables) are written. */
  outDir: string;
}

export function loadBenchConfig(env: Env = process.env): BenchConfig {
  const reader = new EnvReader(env);
  const quick = reader.boolean('BENCH_QUICK', false);
  const numbers = (variable: string, fallback: string): number[] => {
    const raw = reader.string(variable, fallback).trim();
    if (raw === 'none') return [];
    const values = raw.split(',').map((v) => Number(v.trim()));
    if (values.some((v) => !Number.isInteger(v) || v < 1)) throw new ConfigError(variable, 'comma-separated whole numbers above 0, or none', raw);
    return values;
  };
  const skip = reader.string('BENCH_SKIP', 'none').split(',').map((s) => s.trim()).filter((s) => s && s !== 'none');
  const unknown = skip.filter((s) => !['echo', 'redis', 'scaling', 'growth', 'forged'].includes(s));
  if (unknown.length > 0) throw new ConfigError('BENCH_SKIP', 'a comma-separated list of echo, redis, scaling, growth, forged', env.BENCH_SKIP);
  return {
    quick,
    subscriptions: reader.integer('BENCH_SUBSCRIPTIONS', 10_000, 100, 10_000_000),
    growthSteps: numbers('BENCH_GROWTH', quick ? '30000' : '100000,300000'),
    partitions: reader.integer('BENCH_PARTITIONS', 4, 1, 64),
    rates: numbers('BENCH_RATES', '500,1000,2000'),
    inFlight: reader.integer('BENCH_IN_FLIGHT', 256, 1, 10_000),
    phaseSeconds: reader.integer('BENCH_PHASE_SECONDS', quick ? 4 : 12, 1, 3600),
    skip,
    forgedRate: reader.integer('BENCH_FORGED_RATE', 20_000, 1, 1_000_000),
    cpuProfileDir: reader.optionalString('BENCH_CPU_PROF'),
    outDir: reader.string('BENCH_OUT', '.bench'),
  };
}
