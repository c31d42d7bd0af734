import { EnvReader, readLogLevel, type Env } from '../config/env';
import { readKafkaClient, readPartnerTopicPrefix, readTopics, type KafkaClientSettings } from '../config/kafka';
import type { TopicRole } from '../contract/topics';
import type { RetryPolicy } from './delivery';

/** Settings of the webhook dispatcher (`npm run webhooks`), read and checked at start; docs/webhooks.md lists them. */
export interface WebhookConfig {
  serviceName: string;
  kafka: KafkaClientSettings;
  schemaRegistryUrl: string;
  topics: Record<TopicRole, string>;
  partnerTopicPrefix: string;
  redis: { urls: string[]; keyPrefix: string; cluster: boolean; commandTimeoutMs: number };
  policy: RetryPolicy;
  /** Each POST's timeout. */
  requestTimeoutMs: number;
  /** Partitions of one partner delivered at once (each in order): the partner's concurrency bound. */
  partnerConcurrency: number;
  /** Where a partner's first dispatcher starts: the oldest event kept, or only new ones. */
  startFrom: 'earliest' | 'latest';
  refreshMs: number;
  redeliveryPollMs: number;
  /** Plain http:// endpoints (development and tests only). */
  allowHttp: boolean;
  /** PEM file of extra CAs to trust for endpoints (besides the system's). */
  caFile?: string;
  httpPort: number;
  httpHost: string;
  logLevel: string;
}

export function readRetryPolicy(reader: EnvReader): RetryPolicy {
  return {
    initialDelayMs: reader.integer('WEBHOOK_RETRY_INITIAL_MS', 1000, 1, 3_600_000),
    maxDelayMs: reader.integer('WEBHOOK_RETRY_MAX_DELAY_MS', 3_600_000, 1, 86_400_000),
    maxRetryMs: reader.integer('WEBHOOK_MAX_RETRY_MS', 86_400_000, 0, 30 * 86_400_000),
  };
}

export const readAllowHttp = (reader: EnvReader): boolean => reader.boolean('WEBHOOK_ALLOW_HTTP', false);

export function loadWebhookConfig(env: Env = process.env): WebhookConfig {
  const reader = new EnvReader(env);
  return {
    serviceName: reader.string('SERVICE_NAME', 'wholesale-webhooks'),
    kafka: readKafkaClient(reader, 'KAFKA_CLIENT_ID', 'wholesale-webhooks'),
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    topics: readTopics(reader),
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    redis: {
      urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']),
      keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:'),
      cluster: reader.boolean('REDIS_CLUSTER', false),
      commandTimeoutMs: reader.integer('REDIS_COMMAND_TIMEOUT_MS', 2000, 10, 600_000),
    },
    policy: readRetryPolicy(reader),
    requestTimeoutMs: reader.integer('WEBHOOK_TIMEOUT_MS', 10_000, 10, 600_000),
    partnerConcurrency: reader.integer('WEBHOOK_PARTNER_CONCURRENCY', 4, 1, 1000),
    startFrom: reader.oneOf('WEBHOOK_START_FROM', ['earliest', 'latest'] as const, 'earliest'),
    refreshMs: reader.integer('WEBHOOK_REFRESH_MS', 5000, 10, 3_600_000),
    redeliveryPollMs: reader.integer('WEBHOOK_REDELIVERY_POLL_MS', 2000, 10, 3_600_000),
    allowHttp: readAllowHttp(reader),
    caFile: reader.optionalString('WEBHOOK_CA_FILE'),
    httpPort: reader.integer('HTTP_PORT', 0, 0, 65535),
    httpHost: reader.string('HTTP_HOST', '0.0.0.0'),
    logLevel: readLogLevel(reader, 'info'),
  };
}
