import { loadDeadLetterKeyring, type DeadLetterKeySetting } from '../config/dead-letter-keys';
import { readAllowHttp } from '../webhooks/config';
import { EnvReader, readLogLevel, type Env } from '../config/env';
import { loadKafkaSecurity, readKafkaClient, readPartnerTopicPrefix, readTopic, readTopics, type KafkaClientSettings } from '../config/kafka';
import type { TopicRole } from '../contract/topics';

/** `wholesale admin …` (provisioning partners and ACLs): the Kafka connection and the names it provisions. */
export interface AdminConfig {
  /** Read like the service's, with the same Kafka TLS/SASL variables (the admin principal's credentials). */
  kafka: KafkaClientSettings & { topicPartitions: number; topicReplicationFactor: number };
  topics: Record<TopicRole, string>;
  /** The service's consumer group (KAFKA_GROUP_ID) and client id (KAFKA_CLIENT_ID), for `admin service-acls`. */
  groupId: string;
  serviceClientId: string;
  partnerTopicPrefix: string;
  logLevel: string;
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
    serviceClientId: reader.string('KAFKA_CLIENT_ID', 'wholesale-worker'),
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    logLevel: readLogLevel(reader, 'warn'),
  };
}

/** `wholesale admin dlq decrypt`: where the dead letters are and the keys that open them. */
export interface DlqAdminConfig {
  kafka: KafkaClientSettings;
  /** When given, decoded Avro is printed too (the bytes are printed either way). */
  schemaRegistryUrl?: string;
  deadLetterTopic: string;
  keys: DeadLetterKeySetting[];
}

export function loadDlqAdminConfig(overrides: Env = {}, env: Env = process.env): DlqAdminConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    kafka: readKafkaClient(reader, 'ADMIN_CLIENT_ID', 'wholesale-admin'),
    schemaRegistryUrl: reader.optionalString('SCHEMA_REGISTRY_URL') === undefined ? undefined : reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    deadLetterTopic: readTopic(reader, 'deadLetters'),
    keys: loadDeadLetterKeyring(reader),
  };
}

/** `wholesale admin webhooks …`: where the registrations are kept (the dispatcher's Redis) and the rules for new ones. */
export interface WebhookAdminConfig {
  redis: { urls: string[]; keyPrefix: string; cluster: boolean };
  /** Plain http:// endpoints (development and tests only). */
  allowHttp: boolean;
}

export function loadWebhookAdminConfig(overrides: Env = {}, env: Env = process.env): WebhookAdminConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    redis: {
      urls: reader.urlList('REDIS_URL', ['redis:', 'rediss:']),
      keyPrefix: reader.string('REDIS_KEY_PREFIX', 'wh:'),
      cluster: reader.boolean('REDIS_CLUSTER', false),
    },
    allowHttp: readAllowHttp(reader),
  };
}
