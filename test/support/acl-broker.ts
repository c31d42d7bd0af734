import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import pino from 'pino';
import { grantRules } from '../../src/adapters/kafka/acl-admin';
import { withAdmin } from '../../src/adapters/kafka/admin-session';
import type { KafkaConnection } from '../../src/adapters/kafka/connection';
import { DEFAULT_PARTNER_TOPIC_PREFIX } from '../../src/contract/partner-topics';
import { provisionerAcls } from '../../src/security/kafka-acls';
import { startLocalKafka, type LocalKafka, type ScramUser } from '../../dev/stack';

/**
 * A Kafka of its own with the KRaft StandardAuthorizer: nothing is allowed without an ACL. SCRAM users
 * created at format time: the service (a super user), a service user without rights, the admin (only what `wholesale admin` needs:
 * provisionerAcls, granted here over the PLAINTEXT listener) and one user per partner (no rights until
 * `wholesale admin partner add`). Clients connect to `brokers` (SASL_PLAINTEXT) with `env(user)`.
 * For the ACL test and the two-partner journey; the first two partners of config/customers.json by default.
 */
export interface AclBroker {
  readonly kafka: LocalKafka;
  /** The SASL listener: every client of the test goes here. */
  readonly brokers: string[];
  readonly service: ScramUser;
  /** Another service user with no rights of its own: grant it `wholesale admin service-acls` to prove them. */
  readonly limitedService: ScramUser;
  readonly admin: ScramUser;
  /** Partner id → its user (`partner-<id>`). */
  readonly partners: Readonly<Record<string, ScramUser>>;
  /** KAFKA_BROKERS and KAFKA_SASL_* for this user: the service's, the CLI's and the client library's settings. */
  env(user: ScramUser): Record<string, string>;
  /** How src/adapters/kafka reaches the SASL listener as this user (topics, ACLs), quietly. */
  connection(user: ScramUser): KafkaConnection;
  /** A kafkajs client connecting as this user, quiet, without retries (a refusal surfaces at once); `config` wins. */
  client(user: ScramUser, config?: Partial<KafkaConfig>): Kafka;
  dispose(): Promise<void>;
}

export const principalOf = (user: ScramUser): string => `User:${user.username}`;

const MECHANISM = 'scram-sha-512';
const quiet = pino({ level: 'silent' });
const user = (username: string): ScramUser => ({ username, password: randomBytes(12).toString('hex') });

export async function startAclBroker(options: { partnerIds?: readonly string[]; partnerPrefix?: string } = {}): Promise<AclBroker> {
  const partnerIds = options.partnerIds ?? ['100000108464', '200000000001'];
  const service = user('wholesale-svc');
  const limitedService = user('wholesale-svc-limited');
  const admin = user('wholesale-admin');
  const partners = Object.fromEntries(partnerIds.map((id) => [id, user(`partner-${id}`)]));
  const kafka = await startLocalKafka({
    sasl: { users: [service, limitedService, admin, ...Object.values(partners)] },
    authorizer: { superUsers: [service.username] },
  });
  const brokers = kafka.saslBrokers!;
  const sasl = (u: ScramUser): SASLOptions => ({ mechanism: MECHANISM, username: u.username, password: u.password });
  try {
    // The PLAINTEXT listener's ANONYMOUS principal is a super user: the operator's way in, used once here.
    const bootstrap: KafkaConnection = { brokers: kafka.brokers, clientId: 'acl-bootstrap', log: quiet };
    await withAdmin(bootstrap, (client) => grantRules(client, provisionerAcls(principalOf(admin), options.partnerPrefix ?? DEFAULT_PARTNER_TOPIC_PREFIX)));
  } catch (error) {
    await kafka.dispose();
    throw error;
  }
  return {
    kafka,
    brokers,
    service,
    limitedService,
    admin,
    partners,
    connection: (u) => ({ brokers, clientId: `acl-${u.username}`, log: quiet, security: { sasl: { mechanism: MECHANISM, username: u.username, password: u.password } } }),
    env: (u) => ({ KAFKA_BROKERS: brokers.join(','), KAFKA_SASL_MECHANISM: MECHANISM, KAFKA_SASL_USERNAME: u.username, KAFKA_SASL_PASSWORD: u.password }),
    client: (u, config = {}) => new Kafka({ clientId: `acl-${u.username}`, brokers, sasl: sasl(u), logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 5000, ...config }),
    dispose: () => kafka.dispose(),
  };
}
