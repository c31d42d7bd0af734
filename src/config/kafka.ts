import { DEFAULT_PARTNER_TOPIC_PREFIX } from '../contract/partner-topics';
import { DEFAULT_TOPIC_NAMES, type TopicRole } from '../contract/topics';
import { ConfigError, type EnvReader } from './env';

/**
 * How every program reaches Kafka (the service, the client library and CLI, the NP simulator): the
 * brokers, the transport security (KAFKA_TLS_*, KAFKA_SASL_*), the topic names and the partners' topic
 * namespace, read by the same variables everywhere so one environment drives both sides.
 */
export interface KafkaTlsSettings {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  keyPassphrase?: string;
  rejectUnauthorized: boolean;
  servername?: string;
}

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaSaslSettings {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

/** Transport security of every Kafka client of the service, the NP simulator and the client library. */
export interface KafkaSecurity {
  tls?: KafkaTlsSettings;
  sasl?: KafkaSaslSettings;
}

function loadTls(reader: EnvReader): KafkaTlsSettings | undefined {
  const tls = {
    caFile: reader.optionalString('KAFKA_TLS_CA_FILE'),
    certFile: reader.optionalString('KAFKA_TLS_CERT_FILE'),
    keyFile: reader.optionalString('KAFKA_TLS_KEY_FILE'),
    keyPassphrase: reader.optionalString('KAFKA_TLS_KEY_PASSPHRASE'),
    servername: reader.optionalString('KAFKA_TLS_SERVERNAME'),
    rejectUnauthorized: reader.boolean('KAFKA_TLS_REJECT_UNAUTHORIZED', true),
  };
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new ConfigError('KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE together (client certificate and its key)', tls.certFile ?? tls.keyFile);
  }
  // Giving any TLS file turns TLS on; KAFKA_TLS=true alone means TLS with the system's trusted CAs.
  const enabled = reader.boolean('KAFKA_TLS', tls.caFile !== undefined || tls.certFile !== undefined);
  return enabled ? tls : undefined;
}

function loadSasl(reader: EnvReader): KafkaSaslSettings | undefined {
  const raw = reader.optionalString('KAFKA_SASL_MECHANISM');
  if (raw === undefined) return undefined;
  const mechanism = raw.toLowerCase() as SaslMechanism; // Kafka spells them upper case, kafkajs's users lower case: accept both
  if (!SASL_MECHANISMS.includes(mechanism)) throw new ConfigError('KAFKA_SASL_MECHANISM', `one of ${SASL_MECHANISMS.join(', ')}`, raw);
  return { mechanism, username: reader.string('KAFKA_SASL_USERNAME'), password: reader.string('KAFKA_SASL_PASSWORD') };
}

export function loadKafkaSecurity(reader: EnvReader): KafkaSecurity {
  const security: KafkaSecurity = {};
  const tls = loadTls(reader);
  const sasl = loadSasl(reader);
  if (tls) security.tls = tls;
  if (sasl) security.sasl = sasl;
  return security;
}

/**
 * The transactional ids of a service's workers begin with this (exactly-once outputs): the ACLs grant the
 * prefix, each worker adds its group instance id or a random one.
 */
export const transactionalIdPrefix = (clientId: string): string => `${clientId}-tx-`;

/** The connection part of a program's Kafka settings. */
export interface KafkaClientSettings {
  brokers: string[];
  clientId: string;
  security: KafkaSecurity;
}

/** KAFKA_BROKERS, the client id (`clientIdVariable`, else `defaultClientId`) and the transport security. */
export function readKafkaClient(reader: EnvReader, clientIdVariable: string, defaultClientId: string): KafkaClientSettings {
  return { brokers: reader.brokers('KAFKA_BROKERS'), clientId: reader.string(clientIdVariable, defaultClientId), security: loadKafkaSecurity(reader) };
}

/** The variable naming each topic role (TOPIC_*); each falls back to the contract's default name. */
export const TOPIC_VARIABLES: Readonly<Record<TopicRole, string>> = {
  portinCommands: 'TOPIC_PORTIN_COMMANDS',
  portinReplies: 'TOPIC_PORTIN_REPLIES',
  balanceCommands: 'TOPIC_BALANCE_COMMANDS',
  balanceReplies: 'TOPIC_BALANCE_REPLIES',
  portinEvents: 'TOPIC_PORTIN_EVENTS',
  balanceEvents: 'TOPIC_BALANCE_EVENTS',
  deadLetters: 'TOPIC_DEAD_LETTERS',
  npRequests: 'TOPIC_NP_REQUESTS',
  npResponses: 'TOPIC_NP_RESPONSES',
};

/** One topic's name. */
export const readTopic = (reader: EnvReader, role: TopicRole): string => reader.string(TOPIC_VARIABLES[role], DEFAULT_TOPIC_NAMES[role]);

/** Topic names by role. */
export function readTopics(reader: EnvReader): Record<TopicRole, string> {
  return Object.fromEntries((Object.keys(TOPIC_VARIABLES) as TopicRole[]).map((role) => [role, readTopic(reader, role)])) as Record<TopicRole, string>;
}

/** A topic-name prefix ending in a dot: `<prefix><partnerId>.` must stay a legal topic name. */
export function readPartnerTopicPrefix(reader: EnvReader): string {
  const prefix = reader.string('PARTNER_TOPIC_PREFIX', DEFAULT_PARTNER_TOPIC_PREFIX);
  if (!/^[A-Za-z0-9._-]{1,100}\.$/.test(prefix)) throw new ConfigError('PARTNER_TOPIC_PREFIX', 'letters, digits, . _ - ending in a dot', prefix);
  return prefix;
}
