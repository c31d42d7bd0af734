import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { BalanceComponents } from '../../src/app/balance';
import { HEADER } from '../../src/contract/headers';
import { balanceComponentsOf, BalanceClient, balanceRecord } from '../support/balance-client';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * A partner that writes its commands inside Kafka transactions (Spring's KafkaTransactionManager, an outbox
 * relay), played by kafkajs's transactional producer, against the service's read_committed consumer: a
 * command whose transaction was aborted is never applied and never answered. Two shapes the client's filter
 * got wrong before patches/@platformatic+kafka+2.12.1.patch (docs/decisions/kafka-client.md): one producer's
 * several aborted transactions in one fetch, and an abort marker that comes in a later fetch than its records.
 */
jest.setTimeout(120_000);

// The worker's fetch limit per partition is MAX_MESSAGE_BYTES; a batch of twenty commands (about 3 KB) is
// larger, so Kafka returns it alone (a partition's first batch comes whole whatever the limit) and its
// abort marker comes in the next fetch.
const FETCH_LIMIT_BYTES = 1024;

function transactionalPartner(env: Record<string, string>) {
  let client: BalanceClient;
  let balance: BalanceComponents;
  let producer: Producer;
  let idempotent: Producer;

  const fx = useService({ env });

  beforeAll(async () => {
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
    const kafka = new Kafka({ clientId: 'transactional-partner', brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING });
    producer = kafka.producer({ transactionalId: `partner-outbox-${randomUUID()}`, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    // the same partner's plain idempotent producer, for commands it sends outside transactions
    idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await Promise.all([producer.connect(), idempotent.connect()]);
    fx.track({ stop: () => Promise.all([producer.disconnect(), idempotent.disconnect()]) });
  });

  const addCommand = async (sub: TestSubscription, quantity: number) => {
    const correlationId = randomUUID();
    const command = { gpsi: sub.gpsi, balances: [{ subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity, unitType: 'MB' }] };
    return {
      correlationId,
      message: {
        key: sub.gpsi,
        value: await client.requester.encode('balanceCommands', balanceRecord('UpdateBalances'), command),
        headers: { [HEADER.correlationId]: correlationId, [HEADER.wholesaleCustomerId]: sub.wholesaleCustomerId },
      },
    };
  };

  /** One transaction of the partner's producer: its commands in one send, then commit or abort. */
  const transaction = async (sub: TestSubscription, quantities: number[], end: 'commit' | 'abort'): Promise<string[]> => {
    const commands = await Promise.all(quantities.map((quantity) => addCommand(sub, quantity)));
    const txn = await producer.transaction();
    await txn.send({ topic: fx.config.topics.balanceCommands, acks: -1, messages: commands.map((c) => c.message) });
    await (end === 'commit' ? txn.commit() : txn.abort());
    return commands.map((c) => c.correlationId);
  };

  const dataRemaining = async (sub: TestSubscription): Promise<number> => {
    const reply = await client.send('QueryBalances', { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
    const subBalances = reply.value.balances.flatMap((b: { subBalances: { subBalanceInstId: string; remainingBalance: number }[] }) => b.subBalances);
    return subBalances.find((b: { subBalanceInstId: string }) => b.subBalanceInstId === `${sub.gpsi}-4`).remainingBalance;
  };

  /** After the committed command's reply (the aborted ones precede it on the partition), any reply to an aborted one would have come. */
  const expectOnlyCommittedAnswered = async (committed: string, aborted: string[]) => {
    const reply = await client.requester.awaitReply(committed);
    expect(reply.value.status).toBe('Success');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(aborted.filter((id) => client.requester.unclaimed(id) !== undefined)).toEqual([]);
  };

  /** A partner's retry as its systems make one: the same record sent again (its first send timed out for it). */
  const sendTwice = async (sub: TestSubscription, quantity: number) => {
    const { correlationId, message } = await addCommand(sub, quantity);
    for (let i = 0; i < 2; i++) await idempotent.send({ topic: fx.config.topics.balanceCommands, acks: -1, messages: [message] });
    return correlationId;
  };

  return { fx, transaction, sendTwice, client: () => client, dataRemaining, expectOnlyCommittedAnswered, subscription: () => createActiveSubscription(balance.subscriptions) };
}

describe('a partner transaction: several aborted in one fetch', () => {
  const { fx, transaction, sendTwice, client, dataRemaining, expectOnlyCommittedAnswered, subscription } = transactionalPartner({});

  it("an idempotent producer's retry of a command: each record answered with the same reply, the change applied once", async () => {
    const sub = await subscription();
    const before = await dataRemaining(sub);
    const id = await sendTwice(sub, 7);
    const first = await client().requester.awaitReply(id);
    const second = await client().requester.awaitReply(id);
    expect(first.value.status).toBe('Success');
    expect(second.value).toEqual(first.value);
    expect((await dataRemaining(sub)) - before).toBe(7);
  });

  it('skips every aborted transaction of one producer when several come in one fetch', async () => {
    const sub = await subscription();
    const before = await dataRemaining(sub);
    await fx.stopService();
    const aborted = [...(await transaction(sub, [100, 100], 'abort')), ...(await transaction(sub, [1000, 1000], 'abort'))];
    const [committed] = await transaction(sub, [1], 'commit');
    await fx.restart();
    await expectOnlyCommittedAnswered(committed, aborted);
    expect((await dataRemaining(sub)) - before).toBe(1);
  });
});

describe('a partner transaction: the abort marker in a later fetch', () => {
  const { transaction, dataRemaining, expectOnlyCommittedAnswered, subscription } = transactionalPartner({ MAX_MESSAGE_BYTES: String(FETCH_LIMIT_BYTES) });

  it('skips an aborted transaction whose abort marker comes in a later fetch than its records', async () => {
    const sub = await subscription();
    const before = await dataRemaining(sub);
    const aborted = await transaction(
      sub,
      Array.from({ length: 20 }, () => 100),
      'abort',
    );
    const [committed] = await transaction(sub, [1], 'commit');
    await expectOnlyCommittedAnswered(committed, aborted);
    expect((await dataRemaining(sub)) - before).toBe(1);
  });
});
