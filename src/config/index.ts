import type { TopicRole } from '../handlers/types';
import { loadAuthSettings, loadKafkaSecurity, loadRateLimitSettings, type AuthSettings, type KafkaSecurity, type RateLimitSettings } from './security';

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
  kafka: { brokers: string[]; clientId: string; topicPartitions: number; topicReplicationFactor: number; security: KafkaSecurity };
  schemaRegistryUrl: string;
  redis: { urls: string[]; keyPrefix: string; cluster: boolean };
  topics: Record<TopicRole, string>;
  /** Consumer group of the command workers. */
  groupId: string;
  limits: { maxMessageBytes: number; idempotencyTtlSeconds: number; handlerConcurrency: number };
  catalogFile: string;
  /** Who may send commands: JWT verification settings, or none (local work). */
  auth: AuthSettings;
  /** The customer hierarchy: partners and their sub nodes (brands), docs/security.md. */
  customersFile: string;
  rateLimit: RateLimitSettings;
  /** Port-in numbers that may never be ported in: inclusive prefix ranges with their reason code. */
  nonPortableRanges: NonPortableRange[];
  logLevel: string;
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

export function loadConfig(env: Env = process.env): ServiceConfig {
  const reader = new EnvReader(env);
  const topics = Object.fromEntries(
    Object.entries(TOPIC_DEFAULTS).map(([role, [variable, name]]) => [role, reader.string(variable, name)]),
  ) as Record<TopicRole, string>;
  return {
    serviceName: reader.string('SERVICE_NAME', 'wholesale-portin-balance'),
    kafka: {
      brokers: reader.brokers('KAFKA_BROKERS'),
      clientId: reader.string('KAFKA_CLIENT_ID', 'wholesale-worker'),
      topicPartitions: reader.integer('TOPIC_PARTITIONS', 3, 1, 1000),
      topicReplicationFactor: reader.integer('TOPIC_REPLICATION_FACTOR', 1, 1, 10),
      security: loadKafkaSecurity(reader),
    },
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    redis: {
      urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']),
      keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:'),
      cluster: reader.boolean('REDIS_CLUSTER', false),
    },
    topics,
    groupId: reader.string('KAFKA_GROUP_ID', 'wholesale-workers'),
    limits: {
      maxMessageBytes: reader.integer('MAX_MESSAGE_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
      idempotencyTtlSeconds: reader.integer('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 1),
      handlerConcurrency: reader.integer('HANDLER_CONCURRENCY', 64, 1, 10000),
    },
    catalogFile: reader.string('CATALOG_FILE', 'config/catalog.json'),
    auth: loadAuthSettings(reader),
    customersFile: reader.string('CUSTOMERS_FILE', 'config/customers.json'),
    rateLimit: loadRateLimitSettings(reader),
    nonPortableRanges: parseNonPortableRanges(reader),
    logLevel: reader.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  };
}
