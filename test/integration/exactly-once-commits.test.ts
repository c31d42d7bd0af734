import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { testConfig, testConnection } from '../support/harness';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { connectCommandTransport, type CommandTransport } from '../../src/adapters/kafka/command-transport';
import { GroupMember } from '../../src/adapters/kafka/group-member';
import type { BatchContext } from '../../src/contract/transport';

/**
 * Exactly once, every offset the member commits goes out in an output transaction: also the position past a
 * partner's transaction marker (committed so the group shows no lag behind it), which was a plain OffsetCommit.
 * A plain commit carries the client's generation when it is sent, and the client sends it again under the next
 * generation after a rebalance refused it: a position taken before a transaction committed further moved the
 * partition's offset back, and the nemesis saw the records after it answered twice.
 */
const config = testConfig();
const connection = testConnection(config, `eo-commits-${randomUUID().slice(0, 6)}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('exactly-once offset commits', () => {
  const input = `eo-commits-in-${randomUUID().slice(0, 8)}`;
  const output = `eo-commits-out-${randomUUID().slice(0, 8)}`;
  const groupId = `eo-commits-${randomUUID()}`;
  const kafka = new Kafka({ clientId: 'eo-commits', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  let transport: CommandTransport | undefined;

  afterAll(async () => {
    await transport?.consumer.disconnect().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  });

  it('the position past a partner transaction marker is committed in an output transaction, never by a plain OffsetCommit', async () => {
    await ensureTopicsExist(connection, [input, output], 1, 1);
    // a partner's transaction: two records, then its commit marker at offset 2
    const partner = kafka.producer({ transactionalId: `partner-${randomUUID()}`, idempotent: true, maxInFlightRequests: 1 });
    await partner.connect();
    const transaction = await partner.transaction();
    await transaction.send({ topic: input, messages: [{ value: 'one' }, { value: 'two' }] });
    await transaction.commit();
    await partner.disconnect();

    const outcomes: string[] = [];
    transport = await connectCommandTransport(
      connection,
      { groupId, maxBytesPerPartition: 1024 * 1024, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, metadataMaxAgeMs: 5_000, fetchMaxWaitMs: 200 },
      { exactlyOnce: { commitIntervalMs: 20 }, onTransaction: (outcome) => outcomes.push(outcome) },
    );
    const { consumer, transactions } = transport;
    if (!(consumer instanceof GroupMember)) throw new Error('the command transport consumes through its group member');
    const plainCommits = jest.spyOn(consumer.consumer, 'commit'); // passes through to the client: it only counts
    const eachBatch = async (context: BatchContext) => {
      const { batch } = context;
      const first = batch.messages[0].offset;
      const last = batch.messages[batch.messages.length - 1].offset;
      await transactions!.send({
        messages: batch.messages.map((m) => ({ topic: output, key: 'k', value: m.value, headers: {} })),
        offsets: { generation: context.generation, topic: batch.topic, partition: batch.partition, first, offset: last },
        replaceRefused: () => [],
      });
      context.resolveCommitted(last);
    };
    await consumer.subscribe([input]);
    void consumer.run({ partitionsConsumedConcurrently: 1, eachBatch });

    const admin = kafka.admin();
    await admin.connect();
    const committed = async () => Number((await admin.fetchOffsets({ groupId, topics: [input] }))[0].partitions[0].offset);
    const deadline = Date.now() + 30_000;
    let at = await committed();
    for (; at < 3 && Date.now() < deadline; at = await committed()) await sleep(200);
    await admin.disconnect();

    expect(at).toBe(3); // past the marker: no lag left behind it
    expect(outcomes.filter((o) => o === 'committed').length).toBeGreaterThanOrEqual(2); // the records' transaction, then the marker's position
    expect(plainCommits).not.toHaveBeenCalled();
  }, 60_000);
});
