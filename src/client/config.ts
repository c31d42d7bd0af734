import { EnvReader, readLogLevel, type Env } from '../config/env';
import { readKafkaClient, readPartnerTopicPrefix, readTopics, type KafkaClientSettings } from '../config/kafka';
import type { TopicRole } from '../contract/topics';

/**
 * Settings of a requester (the client library, the CLI, the demo): the same variables as the service for
 * Kafka, the registry and the topic names, so one environment drives both sides. No Redis: a requester
 * never touches the service's state.
 */
export interface ClientConfig {
  /** Read like the service's, with the same Kafka TLS/SASL variables. */
  kafka: KafkaClientSettings;
  schemaRegistryUrl: string;
  topics: Record<TopicRole, string>;
  /** The partner namespace prefix of reply and event topics, as the service's. */
  partnerTopicPrefix: string;
  /**
   * The partner acted for (its reply and event topics, its consumer groups' prefix). Unset: the partner root
   * of `wholesaleCustomerId` in `customersFile` when that file knows it, else the legacy shared reply topics.
   */
  partnerId?: string;
  /**
   * Send commands on the shared command topics instead of the partner's own (WHOLESALE_SHARED_COMMAND_TOPICS):
   * there another partner's open transaction can hold them back (docs/contract.md).
   */
  sharedCommandTopics: boolean;
  /** The customer hierarchy the partner of `wholesaleCustomerId` is looked up in (read only when needed). */
  customersFile: string;
  /** Default per-call reply timeout (Spring's ReplyingKafkaTemplate default is 5 s). */
  requestTimeoutMs: number;
  /** wholesaleCustomerId header sent when a call names none (the caller's node of the customer hierarchy). */
  wholesaleCustomerId?: string;
  /** A bearer token sent with every command, for callers without a token provider of their own (the CLI). */
  token?: string;
  logLevel: string;
  /**
   * Names this requester's reply consumer group (`<partner namespace><clientId>-replies-<instanceId>`, a
   * static member of it): a restart with the same id reuses its group. Unique per running requester (a pod
   * name). Unset: a fresh group per connect, which the brokers drop once it is empty.
   */
  instanceId?: string;
}

/** `overrides` (e.g. CLI flags, as variable → value) win over the environment. */
export function loadClientConfig(overrides: Env = {}, env: Env = process.env): ClientConfig {
  const reader = new EnvReader({ ...env, ...overrides });
  return {
    kafka: readKafkaClient(reader, 'CLIENT_ID', 'wholesale-client'),
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    topics: readTopics(reader),
    partnerTopicPrefix: readPartnerTopicPrefix(reader),
    partnerId: reader.optionalString('WHOLESALE_PARTNER_ID'),
    sharedCommandTopics: reader.boolean('WHOLESALE_SHARED_COMMAND_TOPICS', false),
    customersFile: reader.string('CUSTOMERS_FILE', 'config/customers.json'),
    requestTimeoutMs: reader.integer('CLIENT_TIMEOUT_MS', 5000, 1, 3_600_000),
    wholesaleCustomerId: reader.optionalString('WHOLESALE_CUSTOMER_ID'),
    token: reader.optionalString('WHOLESALE_TOKEN'),
    logLevel: readLogLevel(reader, 'warn'),
  };
}
