import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer, type IHeaders, type Producer } from 'kafkajs';
import pino from 'pino';
import { loadConfig, type ServiceConfig } from '../../src/app/config';
import { TOPIC_VARIABLES } from '../../src/config/kafka';
import { serviceTopics, startService, type RunningService } from '../../src/app/service';
import { partnerTopics } from '../../src/contract/partner-topics';
import { loadOptionalHierarchyFile } from '../../src/security/hierarchy-file';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import type { KafkaConnection } from '../../src/adapters/kafka/connection';
import { kafkaTransport } from './kafkajs-transport';
import type { TopicRole } from '../../src/contract/topics';
import { HEADER, headerText } from '../../src/contract/headers';

/**
 * Integration-test harness over the real stack started by global-setup (KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL, REDIS_URL in the environment). Each test file gets its own Redis key prefix and
 * consumer groups, so files never see each other's state.
 */
export function testConfig(overrides: Record<string, string> = {}): ServiceConfig {
  const id = randomUUID().slice(0, 8);
  // Topics of their own too: files (and engineers sharing one stack) never consume each other's commands.
  const topics = Object.fromEntries(Object.entries(TOPIC_VARIABLES).map(([role, variable]) => [variable, `${defaults.topics[role as TopicRole]}.${id}`]));
  return loadConfig({
    ...process.env,
    ...topics,
    // Partner topics of their own: the same partner ids (config/customers.json, TEST_CUSTOMERS) in every file.
    PARTNER_TOPIC_PREFIX: `t${id}.partner.`,
    TOPIC_PARTITIONS: '2',
    REDIS_KEY_PREFIX: `t${id}:`,
    KAFKA_GROUP_ID: `workers-${id}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests run without tokens or rate limits unless they ask (test/support/auth.ts: testAuth()).
    AUTH_MODE: 'none',
    RATE_LIMIT_PER_SECOND: '0',
    // Dead letters sealed as in production (AUTH_MODE=jwt requires a key); TEST_DLQ_KEY_ID names it.
    DLQ_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DLQ_ENCRYPTION_KEY_ID: TEST_DLQ_KEY_ID,
    REJECTED_RATE_PER_SECOND: '0',
    ...overrides,
  });
}

export const TEST_DLQ_KEY_ID = 'test-dlq';

/** The same settings a production worker reads from the environment; the test topic names are derived from them. */
const defaults = loadConfig({ KAFKA_BROKERS: 'x:1', SCHEMA_REGISTRY_URL: 'http://x', REDIS_URL: 'redis://x', AUTH_MODE: 'none' });

/** The AUTH_* settings of `config` as environment variables (the HS256 secret is not supported here). */
function authEnv(auth: ServiceConfig['auth']): Record<string, string> {
  if (auth.mode === 'none') return { AUTH_MODE: 'none' };
  const keys: Record<string, string> =
    auth.keys.kind === 'jwks-file' ? { AUTH_JWKS_FILE: auth.keys.file } : auth.keys.kind === 'jwks-url' ? { AUTH_JWKS_URL: auth.keys.url } : { AUTH_HS256_SECRET: auth.keys.secret };
  return {
    AUTH_MODE: 'jwt',
    ...keys,
    AUTH_ISSUER: auth.issuer,
    AUTH_AUDIENCE: auth.audience,
    AUTH_CLOCK_TOLERANCE_SECONDS: String(auth.clockToleranceSeconds),
    AUTH_CUSTOMER_CLAIM: auth.customerClaim,
  };
}

/** Environment variables that make a separate worker process use the same topics, prefix, group and security settings as `config`. */
export function envFor(config: ServiceConfig): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(TOPIC_VARIABLES).map(([role, variable]) => [variable, config.topics[role as TopicRole]])),
    PARTNER_TOPIC_PREFIX: config.partnerTopicPrefix,
    TOPIC_PARTITIONS: String(config.kafka.topicPartitions),
    REDIS_KEY_PREFIX: config.redis.keyPrefix,
    KAFKA_GROUP_ID: config.groupId,
    ...authEnv(config.auth),
    CUSTOMERS_FILE: config.customersFile,
    RATE_LIMIT_PER_SECOND: String(config.rateLimit.perSecond),
    RATE_LIMIT_BURST: String(config.rateLimit.burst),
    ...(config.deadLetters.encryptionKey ? { DLQ_ENCRYPTION_KEY: config.deadLetters.encryptionKey.key, DLQ_ENCRYPTION_KEY_ID: config.deadLetters.encryptionKey.id } : {}),
    REJECTED_RATE_PER_SECOND: String(config.rejectedRate.perSecond),
    REJECTED_BURST: String(config.rejectedRate.burst),
  };
}

/** The partners of the configuration's customer hierarchy (none when AUTH_MODE=none runs without the file). */
export const partnersOf = (config: ServiceConfig): string[] =>
  loadOptionalHierarchyFile(config.customersFile)
    ?.partners()
    .map((p) => p.id) ?? [];

/** A partner's own topics (its replies and events) under the configuration's prefix. */
export const partnerTopicsOf = (config: ServiceConfig, partnerId: string) => partnerTopics(config.partnerTopicPrefix, partnerId);

/**
 * Where the service answers: every partner's own reply topics, and the legacy shared ones (AUTH_MODE=none
 * for a node the hierarchy does not know). A requester for one partner reads only that partner's.
 */
export function replyTopicsOf(config: ServiceConfig, partnerId?: string): string[] {
  const partners = partnerId === undefined ? partnersOf(config) : [partnerId];
  const own = partners.flatMap((p) => [partnerTopicsOf(config, p).portinReplies, partnerTopicsOf(config, p).balanceReplies]);
  return partnerId === undefined ? [config.topics.portinReplies, config.topics.balanceReplies, ...own] : own;
}

/** Creates the configuration's topics (as a worker would at start), for tests that start the worker as a separate process. */
export async function createTopics(config: ServiceConfig): Promise<void> {
  await ensureTopicsExist(testConnection(config), serviceTopics(config, loadOptionalHierarchyFile(config.customersFile)), config.kafka.topicPartitions, config.kafka.topicReplicationFactor);
}

/** How a test reaches the configuration's cluster through src/adapters/kafka (e.g. to create topics), quietly. */
export const testConnection = (config: ServiceConfig, clientId = 'test'): KafkaConnection => ({
  brokers: config.kafka.brokers,
  clientId,
  log: pino({ level: 'silent' }),
  security: config.kafka.security,
});

export const testLogger = (config: ServiceConfig) => pino({ level: config.logLevel });

/** Starts the service and waits for its consumer to join (awaitJoin: false hands it over at once), logging to testLogger unless told. */
export async function startTestService(
  config: ServiceConfig,
  options: Parameters<typeof startService>[2] = {},
  { log = testLogger(config), awaitJoin = true }: { log?: pino.Logger; awaitJoin?: boolean } = {},
): Promise<RunningService> {
  const service = await startService(config, log, options);
  if (awaitJoin) await service.joined;
  return service;
}

export interface Reply {
  recordName: string;
  value: Record<string, any>;
  headers: Record<string, string>;
  rawHeaders: IHeaders;
  rawValue: Buffer | null;
  topic: string;
  key: string | null;
}

const kafkaFor = (config: ServiceConfig) => new Kafka({ clientId: 'test', brokers: config.kafka.brokers, ...kafkaTransport(config.kafka.security), logLevel: logLevel.NOTHING });

const textHeaders = (headers: IHeaders | undefined): Record<string, string> => Object.fromEntries(Object.keys(headers ?? {}).map((name) => [name, headerText(headers, name) ?? '']));

/** Reads a topic from the beginning with its own group and hands every decoded record to a listener. */
export class TopicReader {
  private constructor(private readonly consumer: Consumer) {}

  static async start(config: ServiceConfig, topics: string[], onRecord: (reply: Reply) => void, codec = new AvroCodec(config.schemaRegistryUrl)): Promise<TopicReader> {
    const consumer = kafkaFor(config).consumer({ maxWaitTimeInMs: 500, groupId: `reader-${randomUUID()}`, allowAutoTopicCreation: false });
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        let recordName: string;
        let value: Record<string, any> = {};
        try {
          const decoded = await codec.decode(message.value);
          recordName = decoded.recordName;
          value = JSON.parse(JSON.stringify(decoded.value));
        } catch {
          recordName = '<undecodable>';
        }
        onRecord({ recordName, value, headers: textHeaders(message.headers), rawHeaders: message.headers ?? {}, rawValue: message.value, topic, key: message.key?.toString() ?? null });
      },
    });
    await joined;
    return new TopicReader(consumer);
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}

export type TokenProvider = () => Promise<string> | string;

export interface SendOptions {
  key?: string;
  headers?: Record<string, string | Buffer>;
  correlationId?: string;
  token?: string | null;
}

/** Sends commands the way a partner's system would and waits for the reply with the same correlation id. */
export class TestRequester {
  private readonly waiting = new Map<string, (reply: Reply) => void>();
  private readonly early = new Map<string, Reply>();

  private constructor(
    readonly config: ServiceConfig,
    readonly codec: AvroCodec,
    private readonly producer: Producer,
    private readonly tokenProvider?: TokenProvider,
    private reader?: TopicReader,
  ) {}

  /**
   * With a tokenProvider, every command carries `Authorization: Bearer <token>` unless a send says otherwise.
   * Reads every reply topic the service answers on unless told which (replyTopicsOf(config, partner)).
   */
  static async start(config: ServiceConfig, replyTopics: string[] = replyTopicsOf(config), options: { tokenProvider?: TokenProvider } = {}): Promise<TestRequester> {
    const codec = new AvroCodec(config.schemaRegistryUrl);
    const producer = kafkaFor(config).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const requester = new TestRequester(config, codec, producer, options.tokenProvider);
    requester.reader = await TopicReader.start(config, replyTopics, (reply) => requester.receive(reply), codec);
    return requester;
  }

  private receive(reply: Reply): void {
    const id = reply.headers[HEADER.correlationId];
    const resolve = this.waiting.get(id);
    if (resolve) {
      this.waiting.delete(id);
      resolve(reply);
    } else this.early.set(id, reply);
  }

  /** Waits for the next reply carrying this correlation id. */
  awaitReply(correlationId: string, timeoutMs = 30000): Promise<Reply> {
    const early = this.early.get(correlationId);
    if (early) {
      this.early.delete(correlationId);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(correlationId);
        reject(new Error(`no reply for ${correlationId} within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.waiting.set(correlationId, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  async sendRaw(topic: string, message: { key?: string | Buffer | null; value: Buffer | null; headers?: Record<string, string | Buffer> }): Promise<void> {
    await this.producer.send({ topic, acks: -1, messages: [{ key: message.key ?? null, value: message.value, headers: message.headers }] });
  }

  async encode(role: TopicRole, recordName: string, value: object): Promise<Buffer> {
    return this.codec.encode(this.config.topics[role], recordName, value);
  }

  /**
   * Encodes and sends a command, then awaits its reply. `token`: a bearer token for this command only,
   * or null to send none even when the requester has a tokenProvider.
   */
  async send(role: TopicRole, recordName: string, value: object, options: SendOptions = {}): Promise<Reply> {
    const correlationId = options.correlationId ?? randomUUID();
    const pending = this.awaitReply(correlationId);
    await this.dispatch(role, recordName, value, { ...options, correlationId });
    return pending;
  }

  /** Sends a command without waiting for a reply (a refused one gets none); returns its correlation id. */
  async dispatch(role: TopicRole, recordName: string, value: object, options: SendOptions = {}): Promise<string> {
    const correlationId = options.correlationId ?? randomUUID();
    const token = options.token === undefined ? await this.tokenProvider?.() : options.token;
    await this.sendRaw(this.config.topics[role], {
      key: options.key ?? (value as { gpsi?: string }).gpsi ?? null,
      value: await this.encode(role, recordName, value),
      headers: { [HEADER.correlationId]: correlationId, ...(token ? { [HEADER.authorization]: `Bearer ${token}` } : {}), ...options.headers },
    });
    return correlationId;
  }

  /** A reply that arrived for this correlation id and that nobody awaited, if any. */
  unclaimed(correlationId: string): Reply | undefined {
    return this.early.get(correlationId);
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
    await this.producer.disconnect();
  }
}
