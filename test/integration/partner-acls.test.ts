import { randomUUID } from 'node:crypto';
import { logLevel, type Kafka, type Producer } from 'kafkajs';
import { describeRules } from '../../src/adapters/kafka/acl-admin';
import { ensureTopicsExist, withAdmin } from '../../src/adapters/kafka/admin-session';
import { type ServiceConfig } from '../../src/app/config';
import { readTopics } from '../../src/config/kafka';
import { EnvReader } from '../../src/config/env';
import { PARTNER_COMMAND_ROLES, partnerNamespace, partnerTopics } from '../../src/contract/partner-topics';
import { HEADER } from '../../src/contract/headers';
import { startAclBroker, principalOf, type AclBroker } from '../support/acl-broker';
import { envFor, startTestService, testConfig, TestRequester } from '../support/harness';
import { runWholesale } from '../support/cli';
import { until } from '../support/until';

/**
 * Partner isolation enforced by Kafka itself: a broker with the StandardAuthorizer (nothing allowed
 * without an ACL), partners A and B provisioned with `wholesale admin partner add` (the real CLI, as the
 * admin principal), then every topic tried as A's principal. A refusal is the broker's error code.
 */
jest.setTimeout(300_000);

const PREFIX = 'wholesale.partner.';
const OPERATOR = readTopics(new EnvReader({}));
const A = '100000108464';
const B = '200000000001';
const topicsOf = (partnerId: string): string[] => Object.values(partnerTopics(PREFIX, partnerId));
const ownCommandTopics = (partnerId: string): string[] => PARTNER_COMMAND_ROLES.map((role) => partnerTopics(PREFIX, partnerId)[role]);

/** The broker's error code behind a kafkajs error (wrapped in retry and non-retriable errors), or its message. */
function errorCode(error: unknown): string {
  for (let e = error as { type?: string; originalError?: unknown; cause?: unknown } | undefined; e; e = (e.originalError ?? e.cause) as typeof e) {
    if (e.type) return e.type;
  }
  return String((error as Error)?.message ?? error);
}

/** Consumes `topics` in `groupId` as the client: 'read' once a record arrives, else the refusal. */
async function readAs(kafka: Kafka, topics: string[], groupId: string, wanted = 1): Promise<string> {
  const consumer = kafka.consumer({ groupId, retry: { retries: 0, restartOnFailure: async () => false }, sessionTimeout: 10_000, heartbeatInterval: 1000 });
  const seen = new Set<string>();
  try {
    await consumer.connect();
    return await new Promise<string>((resolve) => {
      consumer.on(consumer.events.CRASH, (event) => resolve(errorCode(event.payload.error)));
      consumer
        .subscribe({ topics, fromBeginning: true })
        .then(() =>
          consumer.run({
            eachMessage: async ({ topic }) => {
              seen.add(topic);
              if (seen.size >= wanted) resolve('read');
            },
          }),
        )
        .catch((error: unknown) => resolve(errorCode(error)));
    });
  } finally {
    await consumer.disconnect();
  }
}

async function writeAs(producer: Producer, topic: string): Promise<string> {
  try {
    await producer.send({ topic, messages: [{ key: 'probe', value: `written by a partner ${randomUUID()}` }] });
    return 'written';
  } catch (error) {
    return errorCode(error);
  }
}

describe('partner ACLs on a broker with the StandardAuthorizer', () => {
  let broker: AclBroker;
  let asA: Kafka;
  let producerA: Producer;
  const admin = (args: string[], env: Record<string, string> = {}) =>
    runWholesale(['--json', 'admin', ...args], { ...env, ...broker.env(broker.admin), TOPIC_PARTITIONS: '1', LOG_LEVEL: 'error' });
  const groupOfA = (name: string) => `${partnerNamespace(PREFIX, A)}${name}-${randomUUID().slice(0, 8)}`;
  /**
   * A's kafkajs client and the broker's error codes it logged: kafkajs reports a refused FindCoordinator
   * (a group's or a transactional id's) only as "Failed to find group coordinator".
   */
  const clientOfAKeepingAnswers = () => {
    const answers: string[] = [];
    const client = broker.client(broker.partners[A], {
      logLevel: logLevel.DEBUG,
      logCreator: () => (entry) => {
        const type = (entry.log.error as { type?: string } | undefined)?.type;
        if (type) answers.push(type);
      },
    });
    return { client, answers };
  };

  beforeAll(async () => {
    const began = Date.now();
    broker = await startAclBroker({ partnerIds: [A, B] });
    const ready = Date.now();
    for (const partnerId of [A, B]) {
      const added = await admin(['partner', 'add', partnerId, '--principal', principalOf(broker.partners[partnerId])]);
      expect(added).toMatchObject({ code: 0 });
    }
    // The service (a super user) creates its own topics and puts one record on every topic.
    await ensureTopicsExist(broker.connection(broker.service), Object.values(OPERATOR), 1, 1);
    const service = broker.client(broker.service, { retry: { retries: 8 } }); // a new topic's leader may settle a moment after creation
    const producer = service.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.sendBatch({ topicMessages: [...Object.values(OPERATOR), ...topicsOf(A), ...topicsOf(B)].map((topic) => ({ topic, messages: [{ key: 'k', value: 'from the service' }] })) });
    await producer.disconnect();
    asA = broker.client(broker.partners[A]);
    producerA = asA.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producerA.connect();
    console.log(`ACL broker ready in ${((ready - began) / 1000).toFixed(1)} s; partners provisioned and records written in ${((Date.now() - ready) / 1000).toFixed(1)} s`);
  });

  afterAll(async () => {
    await producerA?.disconnect();
    await broker?.dispose();
  });

  it('A reads its own six topics in a consumer group of its namespace', async () => {
    expect(await readAs(asA, topicsOf(A), groupOfA('own'), 6)).toBe('read');
  });

  // Every topic A must not read: B's six, and each of the operator's nine (commands included: they carry every partner's).
  const notReadable = [...topicsOf(B), ...Object.values(OPERATOR)];
  it.each(notReadable)('A reading %s is refused by the broker', async (topic) => {
    expect(await readAs(asA, [topic], groupOfA('probe'))).toBe('TOPIC_AUTHORIZATION_FAILED');
  });

  it.each([
    ["the service's group", () => `wholesale-workers-${randomUUID().slice(0, 8)}`],
    ["a group in B's namespace", () => groupOfA('probe').replace(A, B)],
  ])('A using %s is refused by the broker', async (_name, group) => {
    const { client, answers } = clientOfAKeepingAnswers();
    expect(await readAs(client, [topicsOf(A)[0]], group())).toBe('Failed to find group coordinator');
    expect(answers).toContain('GROUP_AUTHORIZATION_FAILED');
  });

  it('A writes the two shared command topics and its own two', async () => {
    expect(await writeAs(producerA, OPERATOR.portinCommands)).toBe('written');
    expect(await writeAs(producerA, OPERATOR.balanceCommands)).toBe('written');
    expect(await writeAs(producerA, ownCommandTopics(A)[0])).toBe('written');
    expect(await writeAs(producerA, ownCommandTopics(A)[1])).toBe('written');
  });

  it("A writes its own command topic in a transaction under a transactional id of its namespace; under B's the broker refuses", async () => {
    const transact = async (transactionalId: string) => {
      const { client, answers } = clientOfAKeepingAnswers();
      const producer = client.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: { retries: 2 } });
      try {
        await producer.connect();
        const transaction = await producer.transaction();
        await transaction.send({ topic: ownCommandTopics(A)[0], messages: [{ key: 'probe', value: 'in a transaction' }] });
        await transaction.commit();
        return 'committed';
      } catch (error) {
        return answers.find((type) => type.endsWith('_AUTHORIZATION_FAILED')) ?? errorCode(error);
      } finally {
        await producer.disconnect();
      }
    };
    // the broker creates its transaction log on the first transactional id it is asked about: "no coordinator" until then
    let own = '';
    for (let attempt = 0; attempt < 15 && own !== 'committed'; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
      own = await transact(`${partnerNamespace(PREFIX, A)}outbox-${randomUUID().slice(0, 8)}`);
    }
    expect(own).toBe('committed');
    expect(await transact(`${partnerNamespace(PREFIX, B)}outbox-${randomUUID().slice(0, 8)}`)).toBe('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
  });

  // Every topic but the command topics it may write: its own replies and events included (only the service writes them).
  const notWritable = [
    ...topicsOf(A).filter((t) => !ownCommandTopics(A).includes(t)),
    ...topicsOf(B),
    ...Object.values(OPERATOR).filter((t) => t !== OPERATOR.portinCommands && t !== OPERATOR.balanceCommands),
  ];
  it.each(notWritable)('A writing %s is refused by the broker', async (topic) => {
    expect(await writeAs(producerA, topic)).toBe('TOPIC_AUTHORIZATION_FAILED');
  });

  it('`admin partner add` a second time changes nothing; `admin partner list` shows both partners', async () => {
    const rulesAndTopics = () => withAdmin(broker.connection(broker.service), async (client) => ({ rules: await describeRules(client), topics: (await client.listTopics()).sort() }));
    const before = await rulesAndTopics();
    const again = await admin(['partner', 'add', A, '--principal', principalOf(broker.partners[A])]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ partner: A, createdRules: [], createdTopics: [] });
    expect(JSON.parse(again.stdout).rules).toHaveLength(13);
    expect(await rulesAndTopics()).toEqual(before);

    const listed = await admin(['partner', 'list']);
    expect(JSON.parse(listed.stdout).partners).toEqual([
      { partnerId: A, principals: [principalOf(broker.partners[A])], topics: topicsOf(A).sort() },
      { partnerId: B, principals: [principalOf(broker.partners[B])], topics: topicsOf(B).sort() },
    ]);
  });

  // The service's least privilege is enough both ways: exactly once, the client adds a transaction's
  // partitions with AddPartitionsToTxn v3, a client's version (v4+ are brokers', authorized as ClusterAction).
  it.each([
    { delivery: 'at-least-once', flags: [] as string[], grant: '--topics-precreated', rules: 31 },
    { delivery: 'exactly-once', flags: [] as string[], grant: '--topics-precreated', rules: 31 },
  ])('the service runs $delivery with only what `admin service-acls $grant` grants: it answers a command', async ({ delivery, flags, rules }) => {
    // The partners were provisioned under the production prefix: the service (which creates nothing here) uses it too.
    const config = testConfig({ ...broker.env(broker.limitedService), PARTNER_TOPIC_PREFIX: PREFIX, LOG_LEVEL: 'silent', KAFKA_DELIVERY: delivery });
    const asSuperUser: ServiceConfig = { ...config, kafka: { ...config.kafka, security: { sasl: { mechanism: 'scram-sha-512', ...broker.service } } } };
    await ensureTopicsExist(broker.connection(broker.service), Object.values(config.topics), config.kafka.topicPartitions, 1);
    const granted = await admin(['service-acls', '--principal', principalOf(broker.limitedService), '--topics-precreated', ...flags], envFor(config));
    const planned = JSON.parse((await admin(['service-acls', '--principal', principalOf(broker.limitedService), '--topics-precreated', ...flags, '--dry-run'], envFor(config))).stdout).rules;
    expect(planned).toHaveLength(rules);
    expect(JSON.parse(granted.stdout).rules.filter((rule: { operation: string }) => rule.operation === 'clusterAction')).toEqual([]);

    const service = await startTestService(config);
    const requester = await TestRequester.start(asSuperUser);
    try {
      const reply = await requester.send('portinCommands', 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: '19459986891' });
      expect(reply.headers[HEADER.status]).toBe('Success');
    } finally {
      await requester.stop();
      await service.stop();
    }
  });

  it("`admin partner remove` takes A's rights away (B keeps its own); --delete-topics removes its topics", async () => {
    const removed = await admin(['partner', 'remove', A]);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout).deletedRules).toHaveLength(13);
    // The authorizer applies the metadata change a moment after the controller committed it.
    await until("A's read refused", async () => ((await readAs(asA, topicsOf(A), groupOfA('after'))) === 'read' ? undefined : true));
    expect(await readAs(asA, topicsOf(A), groupOfA('after'))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await writeAs(producerA, OPERATOR.portinCommands)).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await readAs(broker.client(broker.partners[B]), topicsOf(B), `${partnerNamespace(PREFIX, B)}still-${randomUUID().slice(0, 8)}`, 4)).toBe('read');

    const deleted = await admin(['partner', 'remove', A, '--delete-topics']);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deletedRules: [], deletedTopics: topicsOf(A).sort() });
    expect(JSON.parse((await admin(['partner', 'list'])).stdout).partners.map((p: { partnerId: string }) => p.partnerId)).toEqual([B]);
  });
});
