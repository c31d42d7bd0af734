import { hostname } from 'node:os';
import { loadAuthSettings, type AuthSettings } from '../config/auth';
import { EnvReader, readLogLevel, type Env } from '../config/env';
import { readKafkaClient, readPartnerTopicPrefix, readTopics } from '../config/kafka';
import type { ClientConfig } from '../client/config';

/**
 * The HTTP gateway's settings (npm run gateway, src/entry/gateway.ts), read from the environment through
 * the one EnvReader and validated at start: Kafka, the registry and the topic names as the service reads
 * them, the same AUTH_* token settings and customer hierarchy, and its own HTTP_* / GATEWAY_* settings.
 */
export interface GatewayConfig {
  /** What each partner's WholesaleClient is connected with (no partner, token or customer: those come per request). */
  client: ClientConfig;
  http: {
    port: number;
    host: string;
    /** Request bodies larger than this are refused with 413 before they are parsed. */
    bodyLimitBytes: number;
  };
  /** Tokens are verified as the service verifies them, before anything is sent. */
  auth: AuthSettings;
  /** The customer hierarchy: a token's node names its partner, whose client sends and reads its replies. */
  customersFile: string;
  /**
   * Requests one partner may make per window; past it 429 without sending. 0: no limit. Counted in Redis
   * when `redis` is given, so every instance shares one count; else per instance.
   */
  rateLimit: { max: number; windowMs: number; redis?: { urls: string[]; cluster: boolean; keyPrefix: string } };
  /** Readiness: checks older than this are answered from the last result; each check fails after probeTimeoutMs. */
  readiness: { cacheMs: number; probeTimeoutMs: number };
  logLevel: string;
}

export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const reader = new EnvReader(env);
  const customersFile = reader.string('CUSTOMERS_FILE', 'config/customers.json');
  const logLevel = readLogLevel(reader, 'info');
  return {
    client: {
      kafka: readKafkaClient(reader, 'GATEWAY_CLIENT_ID', 'wholesale-gateway'),
      schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
      topics: readTopics(reader),
      partnerTopicPrefix: readPartnerTopicPrefix(reader),
      // each partner's commands on its own command topics, unless the operator keeps the shared ones
      sharedCommandTopics: reader.boolean('WHOLESALE_SHARED_COMMAND_TOPICS', false),
      customersFile,
      requestTimeoutMs: reader.integer('GATEWAY_REPLY_TIMEOUT_MS', 10_000, 1, 300_000),
      logLevel,
      instanceId: reader.string('GATEWAY_INSTANCE_ID', hostname()),
    },
    http: {
      port: reader.integer('HTTP_PORT', 8090, 0, 65535),
      host: reader.string('HTTP_HOST', '0.0.0.0'),
      bodyLimitBytes: reader.integer('GATEWAY_BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    },
    auth: loadAuthSettings(reader),
    customersFile,
    rateLimit: {
      max: reader.integer('GATEWAY_RATE_LIMIT_MAX', 200, 0, 10_000_000),
      windowMs: reader.integer('GATEWAY_RATE_LIMIT_WINDOW_MS', 1000, 100, 3_600_000),
      ...(reader.optionalString('REDIS_URL') === undefined
        ? {}
        : { redis: { urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']), cluster: reader.boolean('REDIS_CLUSTER', false), keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:') } }),
    },
    readiness: {
      cacheMs: reader.integer('READINESS_CACHE_MS', 1000, 0, 60_000),
      probeTimeoutMs: reader.integer('READINESS_PROBE_TIMEOUT_MS', 2000, 100, 60_000),
    },
    logLevel,
  };
}
