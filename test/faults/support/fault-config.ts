import type { ServiceConfig } from '../../../src/config';
import { envFor, testConfig } from '../../support/harness';

/**
 * Configuration of one fault test: topics, prefix and group of its own (testConfig), four partitions, and a
 * 10 s consumer session (the default is 30 s) so that a dead worker's partitions, or a worker's return
 * after a Kafka outage, cost seconds of the suite's budget instead of half a minute each.
 */
export const SESSION_TIMEOUT_MS = 10_000;

export function faultConfig(overrides: Record<string, string> = {}): ServiceConfig {
  return testConfig({
    TOPIC_PARTITIONS: '4',
    KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
    ...overrides,
  });
}

/** Everything a worker child process needs to join this configuration's topics, group and servers. */
export function workerEnv(config: ServiceConfig): Record<string, string> {
  return {
    ...envFor(config),
    KAFKA_BROKERS: config.kafka.brokers.join(','),
    REDIS_URL: config.redis.urls.join(','),
    SCHEMA_REGISTRY_URL: config.schemaRegistryUrl,
    TOPIC_REPLICATION_FACTOR: String(config.kafka.topicReplicationFactor),
    KAFKA_SESSION_TIMEOUT_MS: String(config.kafka.sessionTimeoutMs),
    KAFKA_HEARTBEAT_INTERVAL_MS: String(config.kafka.heartbeatIntervalMs),
  };
}
