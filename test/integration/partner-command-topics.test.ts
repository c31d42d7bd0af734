import { randomUUID } from 'node:crypto';
import { Producer, ProduceAcks } from '@platformatic/kafka';
import type { BalanceComponents } from '../../src/app/balance';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { clientOptions } from '../../src/adapters/kafka/connection';
import { SERIALIZERS, type Bytes } from '../../src/adapters/kafka/producer';
import { partnerTopics } from '../../src/contract/partner-topics';
import { HEADER } from '../../src/contract/headers';
import { WholesaleClient } from '../../src/client/wholesale-client';
import { testAuth, type TestAuth } from '../support/auth';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { clientConfigFor, eventually } from '../support/client';
import { testConnection, TopicReader, type Reply } from '../support/harness';
import { createActiveSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * Issue 46 item 5 on the real broker: a partner's producer that begins a transaction and stops holds the
 * last stable offset of the partitions it wrote, and the worker reads read_committed. On its own command
 * topics that holds back only its own commands; on the shared ones it holds back every partner's.
 */
jest.setTimeout(120_000);

const PARTITIONS = 2;
/** What "answered in normal time" means here: far below any transaction timeout. */
const NORMAL_MS = 5_000;
/** The transaction timeout of the partner that stops: how long it holds a shared partition. */
const STALL_MS = 10_000;

describe("partners' own command topics: one partner's open transaction stalls nobody else", () => {
  const prefix = `t${randomUUID().slice(0, 8)}.partner.`;
  const alpha = partnerTopics(prefix, 'alpha');
  const beta = partnerTopics(prefix, 'beta');
  let auth: TestAuth;
  let balance: BalanceComponents;
  const seen: Reply[] = [];

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({
    // metadata read every second: a partner's topics provisioned while the worker runs are consumed within about that
    env: () => ({ ...auth.env, PARTNER_TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: String(PARTITIONS), KAFKA_METADATA_MAX_AGE_MS: '1000' }),
    // encodes and sends hand-made commands; the replies are read by the TopicReader below
    requester: () => [alpha.balanceReplies],
  });

  beforeAll(async () => {
    fx.track(await TopicReader.start(fx.config, [alpha.balanceReplies, beta.balanceReplies], (record) => seen.push(record)));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  afterAll(() => auth?.cleanup());

  const clientFor = async (partnerId: string, overrides: Record<string, string> = {}) =>
    fx.track(await WholesaleClient.connect({ config: clientConfigFor(fx.config, { ...overrides, WHOLESALE_PARTNER_ID: partnerId }), tokenProvider: auth.signer.tokenProvider(partnerId) }));

  /** A partner's transactional producer, as an order system with an outbox relay runs one. */
  const transactionalProducer = (transactionTimeoutMs: number) =>
    fx.track(
      new Producer<Bytes, Buffer, string, Bytes>({
        ...clientOptions(testConnection(fx.config, `alpha-tx-${randomUUID().slice(0, 6)}`)),
        transactionalId: `${prefix}alpha.tx-${randomUUID()}`,
        idempotent: true,
        producerId: -1n,
        producerEpoch: -1,
        maxInflights: 1,
        // this client's request timeout is also the transaction timeout it asks the coordinator for
        timeout: transactionTimeoutMs,
        serializers: SERIALIZERS,
      }),
    );

  /** Alpha's query on every partition of `topic` in one transaction it leaves open; their correlation ids. */
  async function openTransactionOn(producer: Producer<Bytes, Buffer, string, Bytes>, topic: string) {
    const subscription = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha', bucketRefIds: ['2000002'] });
    const value = await fx.requester.encode('balanceCommands', balanceRecord('QueryBalances'), { gpsi: subscription.gpsi });
    const token = await auth.signer.sign('alpha');
    const correlationIds = Array.from({ length: PARTITIONS }, () => randomUUID());
    const transaction = await producer.beginTransaction();
    await transaction.send({
      messages: correlationIds.map((correlationId, partition) => ({
        topic,
        partition,
        key: subscription.gpsi,
        value,
        headers: { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${token}` },
      })),
      acks: ProduceAcks.ALL,
    });
    return { transaction, correlationIds };
  }

  const repliesTo = (correlationIds: string[]) => seen.filter((r) => correlationIds.includes(r.headers[HEADER.correlationId] ?? ''));
  const timed = async <T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> => {
    const started = Date.now();
    const result = await call();
    return { result, ms: Date.now() - started };
  };
  const betaSubscription = () => createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'beta', bucketRefIds: ['2000002'] });

  it("beta's command on its own topic is answered in normal time behind alpha's open transaction on alpha's own topic; alpha's once it commits", async () => {
    const betaClient = await clientFor('beta');
    const { gpsi } = await betaSubscription();
    const { transaction, correlationIds } = await openTransactionOn(transactionalProducer(60_000), alpha.balanceCommands);

    const { result, ms } = await timed(() => betaClient.queryBalances({ gpsi }, { timeoutMs: 30_000 }));
    expect([result.status, ms < NORMAL_MS]).toEqual(['Success', true]);
    expect(repliesTo(correlationIds)).toEqual([]); // still uncommitted: not handed to the worker

    await transaction.commit();
    const answered = await eventually("the replies to alpha's committed commands", () => (repliesTo(correlationIds).length === PARTITIONS ? repliesTo(correlationIds) : undefined));
    expect(answered.map((r) => [r.topic, r.headers[HEADER.status]])).toEqual(correlationIds.map(() => [alpha.balanceReplies, 'Success']));
  });

  it("on the shared topic the same open transaction holds beta's command until the transaction times out", async () => {
    const betaOnShared = await clientFor('beta', { WHOLESALE_SHARED_COMMAND_TOPICS: 'true' });
    const { gpsi } = await betaSubscription();
    const { correlationIds } = await openTransactionOn(transactionalProducer(STALL_MS), fx.config.topics.balanceCommands);

    const { result, ms } = await timed(() => betaOnShared.queryBalances({ gpsi }, { timeoutMs: 60_000 }));
    expect(result.status).toBe('Success');
    expect(ms).toBeGreaterThan(STALL_MS - 2_000); // the coordinator's abort, not beta's command, ended the wait
    expect(repliesTo(correlationIds)).toEqual([]); // aborted: never applied
  });

  it("a partner's command topics created while the worker runs are consumed; a command there from another partner is FORBIDDEN", async () => {
    const gamma = partnerTopics(prefix, 'gamma');
    await ensureTopicsExist(testConnection(fx.config), [gamma.balanceCommands], PARTITIONS, 1);
    const { gpsi } = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha', bucketRefIds: ['2000002'] });
    const correlationId = randomUUID();
    await fx.requester.sendRaw(gamma.balanceCommands, {
      key: gpsi,
      value: await fx.requester.encode('balanceCommands', balanceRecord('QueryBalances'), { gpsi }),
      headers: { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${await auth.signer.sign('alpha')}` },
    });
    const [reply] = await eventually("the answer to alpha on gamma's topic", () => (repliesTo([correlationId]).length > 0 ? repliesTo([correlationId]) : undefined), 20_000);
    expect([reply.topic, reply.headers[HEADER.status], reply.value.error?.code]).toEqual([alpha.balanceReplies, 'FORBIDDEN', 'FORBIDDEN']);
    expect(fx.service.consumedTopics).toEqual(expect.arrayContaining([alpha.balanceCommands, beta.portinCommands, gamma.balanceCommands]));
  });
});
