import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, AssignerProtocol, type Consumer as KafkaJsConsumer, type KafkaMessage, type PartitionAssigner } from 'kafkajs';
import { testConfig, testConnection } from '../support/harness';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { GroupMember } from '../../src/adapters/kafka/group-member';
import { partitionCounts } from '../../src/adapters/kafka/partitioned-sender';
import { createProducer, partitionsReader } from '../../src/adapters/kafka/producer';
import { TransactionalOutput } from '../../src/adapters/kafka/transactional-output';
import type { BatchContext, GroupGeneration } from '../../src/contract/transport';

/**
 * A rebalance's window on a real broker: the client takes a new generation from the JoinGroup answer, and
 * the join (with the new assignment) comes only after SyncGroup, which waits for the group's leader to
 * assign. Meanwhile the member's stream goes on handing out records fetched under the old assignment. A
 * batch handed out then named the new generation in its offset commit, which the group accepts: the member
 * kept the partition, read it again from the committed offset (not yet past that batch), and both copies
 * of its output committed (the nemesis's output-twice). The batch belongs to the generation of the last
 * join, and its commit is refused once the group moved on — also when one transaction takes both copies, which
 * named only the newer one's generation for the partition (CI found that under load).
 *
 * The leader here is a kafkajs member whose assignor takes its time and gives partition 0 to the service's
 * member (the kafkajs members, there to make rebalances, share partition 1).
 */
const config = testConfig();
const connection = testConnection(config, `window-${randomUUID().slice(0, 6)}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MARK = Buffer.from('kafkajs-helper');

async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A round-robin-named assignor that waits `delay()` ms, then gives partition 0 to the members that are not kafkajs helpers, the others to the helpers. */
const slowAssigner =
  (delay: () => number): PartitionAssigner =>
  ({ cluster }) => ({
    name: 'roundrobin',
    version: 1,
    protocol: ({ topics }) => ({ name: 'roundrobin', metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: MARK }) }),
    assign: async ({ members, topics }) => {
      await sleep(delay());
      const partitions = (helper: boolean) =>
        Object.fromEntries(
          topics.map((topic) => [
            topic,
            cluster
              .findTopicPartitionMetadata(topic)
              .map((p) => p.partitionId)
              .filter((p) => p > 0 === helper),
          ]),
        );
      return members.map(({ memberId, memberMetadata }) => {
        const helper = AssignerProtocol.MemberMetadata.decode(memberMetadata)?.userData?.equals(MARK) === true;
        return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment: partitions(helper), userData: Buffer.alloc(0) }) };
      });
    },
  });

async function readCommitted(topic: string, expected: number): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'window-reader', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `window-reader-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 200 });
  const seen: KafkaMessage[] = [];
  let last = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void (seen.push(message), (last = Date.now())) });
  while (seen.length < expected || Date.now() - last < 3_000) {
    if (Date.now() - last > 20_000) break;
    await sleep(100);
  }
  await consumer.disconnect();
  return seen.map((m) => m.value!.toString());
}

describe('a batch handed out between JoinGroup and the join', () => {
  const input = `window-in-${randomUUID().slice(0, 8)}`;
  const output = `window-out-${randomUUID().slice(0, 8)}`;
  const groupId = `window-group-${randomUUID()}`;
  const kafka = new Kafka({ clientId: 'window-helpers', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  const counts = createProducer(connection, { ordered: false });
  const helpers: KafkaJsConsumer[] = [];
  let member: GroupMember | undefined;
  let door: TransactionalOutput | undefined;

  afterAll(async () => {
    await member?.disconnect().catch(() => undefined);
    await door?.close().catch(() => undefined);
    for (const helper of helpers) await helper.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    await counts.close();
  });

  it('commits its offsets for the generation of the last join: refused once the group moved on, so its output is not there twice', async () => {
    await ensureTopicsExist(connection, [input], 2, 1);
    await ensureTopicsExist(connection, [output], 1, 1);
    await producer.connect();
    let assignDelayMs = 0;
    const helper = async () => {
      const consumer = kafka.consumer({
        groupId,
        partitionAssigners: [slowAssigner(() => assignDelayMs)],
        sessionTimeout: 30_000,
        rebalanceTimeout: 30_000,
        heartbeatInterval: 300,
        maxWaitTimeInMs: 100,
      });
      helpers.push(consumer);
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.connect();
      await consumer.subscribe({ topics: [input] });
      await consumer.run({ eachMessage: async () => undefined });
      await joined;
    };
    await helper(); // the first member: the group's leader from then on

    member = new GroupMember(connection, {
      groupId,
      maxBytesPerPartition: 1024 * 1024,
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 300,
      metadataMaxAgeMs: 5_000,
      fetchMaxWaitMs: 200,
    });
    const consumer = member.consumer;
    door = new TransactionalOutput(connection, {
      transactionalId: `window-${randomUUID()}`,
      countOf: partitionCounts(partitionsReader(counts)),
      limitOf: async () => undefined,
      group: consumer,
      commitIntervalMs: 20,
      onSent: () => undefined,
      log: connection.log,
    });
    // as the service wires it (command-transport.ts): every offset in an output transaction
    member.commitInTransactions((offsets) => door!.send({ messages: [], offsets, replaceRefused: () => [] }));
    let joinedGeneration = -1;
    consumer.on('consumer:group:join', ({ generationId }: { generationId: number }) => (joinedGeneration = generationId));

    const handedOut: { value: string; consumerGeneration: number; joinedGeneration: number; stamped: GroupGeneration }[] = [];
    const refused: string[] = [];
    let secondCopy = () => undefined as void;
    const secondCopyHandedOut = new Promise<void>((resolve) => (secondCopy = resolve));
    const eachBatch = async (context: BatchContext) => {
      const { batch } = context;
      for (const record of batch.messages) handedOut.push({ value: record.value!.toString(), consumerGeneration: consumer.generationId, joinedGeneration, stamped: context.generation });
      const values = batch.messages.map((m) => m.value!.toString());
      const firstOffset = batch.messages[0].offset;
      const lastOffset = batch.messages[batch.messages.length - 1].offset;
      // The window's batch is held until the member, joined again, has read the partition again from its committed
      // offset; then both copies are given to the door in one tick, so that one transaction takes them both.
      if (values.includes('in the window')) {
        if (handedOut.filter((h) => h.value === 'in the window').length === 1) {
          context.release();
          await secondCopyHandedOut;
        } else secondCopy();
      }
      try {
        await door!.send({
          messages: values.map((value) => ({ topic: output, key: value, value: Buffer.from(value), headers: {} })),
          offsets: { generation: context.generation, topic: batch.topic, partition: batch.partition, first: firstOffset, offset: lastOffset },
          replaceRefused: () => [],
        });
        context.resolveCommitted(lastOffset);
      } catch (error) {
        refused.push(`${values.join(',')}: ${(error as Error).message}`);
        throw error;
      }
    };
    await member.subscribe([input]);
    void member.run({ partitionsConsumedConcurrently: 1, eachBatch });
    await member.joined;
    await until(() => (consumer.assignments ?? []).some((a) => a.topic === input && a.partitions.includes(0)), 'the partition assigned to the member');

    await producer.send({ topic: input, messages: [{ value: 'before', partition: 0 }] });
    await until(() => handedOut.some((h) => h.value === 'before'), 'the first record handed out');
    // the group settled: no new generation for two seconds
    for (let settled = Date.now(), seen = consumer.generationId; Date.now() - settled < 2_000; await sleep(50)) {
      if (consumer.generationId !== seen || joinedGeneration !== seen) [settled, seen] = [Date.now(), consumer.generationId];
    }
    const before = consumer.generationId;

    // a rebalance whose SyncGroup waits for the slow leader: the member's JoinGroup is answered first
    assignDelayMs = 6_000;
    void helper();
    await until(() => consumer.generationId > before, 'the JoinGroup answer with the new generation');
    expect(joinedGeneration).toBe(before); // the join itself (SyncGroup) is still to come
    await producer.send({ topic: input, messages: [{ value: 'in the window', partition: 0 }] });
    await until(() => handedOut.filter((h) => h.value === 'in the window').length === 2, 'the window record handed out twice', 40_000);
    assignDelayMs = 0;

    const [inWindow, again] = handedOut.filter((h) => h.value === 'in the window');
    // the precondition: the first was handed out in the window, the second after the join
    expect(inWindow.consumerGeneration).toBeGreaterThan(inWindow.joinedGeneration);
    expect(again.joinedGeneration).toBe(again.consumerGeneration);

    await producer.send({ topic: input, messages: [{ value: 'after', partition: 0 }] });
    await until(() => handedOut.some((h) => h.value === 'after'), 'a record after the rebalance handed out');
    expect(await readCommitted(output, 3)).toEqual(['before', 'in the window', 'after']);
    expect(refused).toEqual([expect.stringMatching(/^in the window: .*ILLEGAL_GENERATION/)]);
    expect(inWindow.stamped.generationId).toBe(inWindow.joinedGeneration);
  }, 120_000);
});
