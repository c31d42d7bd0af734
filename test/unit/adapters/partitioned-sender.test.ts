import fc from 'fast-check';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { byPartition, chunkByBytes, createPartitionedSender as senderOver, MAX_SEND_BYTES, partitionCounts } from '../../../src/adapters/kafka/partitioned-sender';
import type { ProduceCall, WireMessage } from '../../../src/adapters/kafka/spanning-calls';
import { outboundBytes, TopicRefusedError, type Outbound } from '../../../src/contract/transport';

/**
 * The sender writes one topic-partition per call (kafkajs drops messages of a multi-broker call whose
 * partitions moved mid-call) in runs below the broker's batch limit; partitions are chosen as kafkajs's and
 * Java's default partitioner would.
 */
const message = (size: number, i: number): Outbound => ({ topic: `t${i % 3}`, key: `k${i}`, value: Buffer.alloc(size), headers: { n: String(i) } });
const fourPartitions = async () => 4;

/**
 * The fakes below play two producers in kafkajs's shapes: `send` (one topic per call) for the retrying one,
 * `sendBatch` (topics grouped) for the spanning one; these turn them into the produce calls the sender takes.
 * kafkajs's partitioner is the reference for the partition a key must land on: partners on kafkajs pick it.
 */
type RetryingFake = { send: (record: { topic: string; acks?: number; messages: WireMessage[] }) => Promise<unknown> };
type SpanningFake = { sendBatch: (batch: { topicMessages: { topic: string; messages: WireMessage[] }[] }) => Promise<unknown> };
const retryingCall =
  (fake: RetryingFake): ProduceCall =>
  async (messages) =>
    void (await fake.send({ topic: messages[0].topic, acks: -1, messages }));
const spanningCall =
  (fake: SpanningFake): ProduceCall =>
  async (messages) => {
    const byTopic = new Map<string, WireMessage[]>();
    for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
    await fake.sendBatch({ topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })) });
  };
const createPartitionedSender = (retrying: unknown, countOf: Parameters<typeof senderOver>[1], spanning?: unknown) =>
  senderOver(retryingCall(retrying as RetryingFake), countOf, spanning === undefined ? undefined : spanningCall(spanning as SpanningFake));

describe('chunkByBytes', () => {
  it('keeps every message, in order, in runs of at most the limit (a larger message alone)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 * MAX_SEND_BYTES }), { maxLength: 40 }), (sizes) => {
        const messages = sizes.map(message);
        const chunks = chunkByBytes(messages, MAX_SEND_BYTES);
        expect(chunks.flat()).toEqual(messages);
        for (const chunk of chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          const bytes = chunk.reduce((sum, m) => sum + outboundBytes(m), 0);
          if (chunk.length > 1) expect(bytes).toBeLessThanOrEqual(MAX_SEND_BYTES);
        }
      }),
    );
  });

  it('sends small messages together', () => {
    expect(
      chunkByBytes(
        Array.from({ length: 1000 }, (_, i) => message(200, i)),
        MAX_SEND_BYTES,
      ),
    ).toHaveLength(1);
    expect(chunkByBytes([], MAX_SEND_BYTES)).toEqual([]);
  });
});

describe('byPartition', () => {
  it("chooses kafkajs's default partition for a key, keeps a given one, and keeps the order within a partition", async () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    const metadata = Array.from({ length: 4 }, (_, partitionId) => ({ partitionId, leader: 1 }) as PartitionMetadata);
    const messages = Array.from({ length: 200 }, (_, i) => ({ ...message(10, i), partition: i % 50 === 0 ? 3 : undefined }));
    const { groups } = await byPartition(messages, fourPartitions);
    for (const [key, group] of groups) {
      const [partition, topic] = [Number(key.split(':')[0]), key.slice(key.indexOf(':') + 1)];
      for (const m of group) {
        expect(m.topic).toBe(topic);
        expect(m.partition).toBe(partition);
        const original = messages.find((o) => o.headers.n === m.headers.n)!;
        expect(partition).toBe(original.partition ?? kafkajs({ topic, partitionMetadata: metadata, message: { key: original.key, value: original.value } }));
      }
      const order = group.map((m) => Number(m.headers.n));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    expect([...groups.values()].flat()).toHaveLength(messages.length);
  });

  it('puts a message with a preferred partition on that partition modulo the count, whatever its key', async () => {
    const messages = [5, 2, 9, 3].map((preferredPartition, i) => ({ ...message(10, i), topic: 'replies', preferredPartition }));
    const { groups } = await byPartition(messages, fourPartitions);
    const placed = [...groups.values()].flat().sort((a, b) => Number(a.headers.n) - Number(b.headers.n));
    expect(placed.map((m) => m.partition)).toEqual([1, 2, 1, 3]);
    expect(placed.every((m) => m.preferredPartition === undefined)).toBe(true);
    expect([...groups.keys()].sort()).toEqual(['1:replies', '2:replies', '3:replies']);
  });

  it("looks a topic's count up once per call, and again, fresh, for a partition beyond it", async () => {
    const lookups: [string, boolean][] = [];
    const counting = async (topic: string, fresh = false) => {
      lookups.push([topic, fresh]);
      return fresh ? 8 : 4;
    };
    const messages = [...Array.from({ length: 30 }, (_, i) => message(10, i)), { ...message(10, 30), topic: 't0', partition: 6 }];
    const { groups, refused } = await byPartition(messages, counting);
    expect(refused).toEqual([]);
    expect(lookups.sort()).toEqual([
      ['t0', false],
      ['t0', true],
      ['t1', false],
      ['t2', false],
    ]);
    expect(groups.get('6:t0')?.map((m) => m.headers.n)).toEqual(['30']);
  });

  it('without a spanning producer, makes one send call per topic-partition and run', async () => {
    const calls: { topic: string; partitions: Set<number | undefined> }[] = [];
    const producer = {
      send: async (record: { topic: string; messages: { partition?: number }[] }) => void calls.push({ topic: record.topic, partitions: new Set(record.messages.map((m) => m.partition)) }),
    };
    const sender = createPartitionedSender(producer, fourPartitions);
    await sender.send(Array.from({ length: 100 }, (_, i) => message(100, i)));
    expect(calls.length).toBeGreaterThan(3);
    for (const call of calls) expect(call.partitions.size).toBe(1);
  });
});

describe('refusals', () => {
  /** A producer that acknowledges everything but messages whose value is "big" (the broker's MESSAGE_TOO_LARGE). */
  const producerRefusingBig = (acknowledged: string[]) => ({
    send: async (record: { messages: { key: string; value: Buffer }[] }) => {
      if (record.messages.some((m) => m.value.toString() === 'big')) {
        throw Object.assign(new Error('Request failed'), {
          cause: Object.assign(new Error('The request included a message larger than the max message size the server will accept'), { apiId: 'MESSAGE_TOO_LARGE', canRetry: false }),
        });
      }
      acknowledged.push(...record.messages.map((m) => m.key));
    },
  });
  const outbound = (key: string, value: string, extra: Partial<Outbound> = {}): Outbound => ({ topic: 'replies', key, value: Buffer.from(value), headers: {}, partition: 0, ...extra });

  it('sends a run the broker refuses one message at a time: only the bad message is refused, the others are acknowledged in order', async () => {
    const acknowledged: string[] = [];
    const messages = [outbound('a', 'ok'), outbound('b', 'big'), outbound('c', 'ok')];
    const refused = await createPartitionedSender(producerRefusingBig(acknowledged), fourPartitions).send(messages);
    expect(acknowledged).toEqual(['a', 'c']);
    expect(refused).toEqual([{ message: messages[1], reason: 'MESSAGE_TOO_LARGE: Request failed' }]);
  });

  it('refuses a message to a topic the metadata refuses and one to a partition the topic lacks, without sending them', async () => {
    const acknowledged: string[] = [];
    const asked: { topic: string; fresh: boolean }[] = [];
    const countOf = async (topic: string, fresh = false) => {
      asked.push({ topic, fresh });
      if (topic === 'does.not.exist') throw new TopicRefusedError(topic, 'UNKNOWN_TOPIC_OR_PARTITION');
      return 2;
    };
    const messages = [outbound('a', 'ok', { topic: 'does.not.exist' }), outbound('b', 'ok', { partition: 7 }), outbound('c', 'ok', { partition: 1 })];
    const refused = await createPartitionedSender(producerRefusingBig(acknowledged), countOf).send(messages);
    expect(acknowledged).toEqual(['c']);
    expect(refused).toEqual([
      { message: messages[0], reason: 'UNKNOWN_TOPIC_OR_PARTITION: topic does.not.exist cannot be written' },
      { message: messages[1], reason: 'partition 7 does not exist: topic replies has 2' },
    ]);
    expect(asked).toContainEqual({ topic: 'replies', fresh: true }); // the count is read again before refusing: the topic may have grown
  });

  it('rejects on a retriable failure (a leader moving), so the batch is retried', async () => {
    const producer = { send: async () => Promise.reject(Object.assign(new Error('not the leader'), { apiId: 'NOT_LEADER_OR_FOLLOWER', canRetry: true })) };
    await expect(createPartitionedSender(producer, fourPartitions).send([outbound('a', 'ok')])).rejects.toThrow('not the leader');
  });

  it('partitionCounts turns an unknown topic into a refusal and remembers it briefly, and passes other failures on', async () => {
    let calls = 0;
    const readCount = async (topic: string): Promise<number> => {
      calls++;
      // the client's own error for an unknown topic (its metadata drops the protocol error)
      if (topic === 'gone') throw Object.assign(new Error('Unknown topic gone.'), { code: 'PLT_KFK_USER' });
      throw Object.assign(new Error('Connection error'), { code: 'PLT_KFK_NETWORK' });
    };
    const countOf = partitionCounts(readCount);
    await expect(countOf('gone')).rejects.toBeInstanceOf(TopicRefusedError);
    await expect(countOf('gone')).rejects.toBeInstanceOf(TopicRefusedError);
    expect(calls).toBe(1);
    await expect(countOf('away')).rejects.toThrow('Connection error');
  });

  it('partitionCounts reads a count again when asked for a fresh one, but not for every message of a burst', async () => {
    let calls = 0;
    const countOf = partitionCounts(async () => (calls++, 2));
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      expect(await countOf('replies')).toBe(2);
      expect(await countOf('replies', true)).toBe(2); // just read: recent enough
      jest.setSystemTime(1_000_000 + 5_000);
      expect(await countOf('replies')).toBe(2);
      expect(calls).toBe(1);
      expect(await countOf('replies', true)).toBe(2);
      expect(calls).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('one call spanning partitions', () => {
  type Batch = { topicMessages: { topic: string; messages: { key: string; partition: number }[] }[] };
  /** Records calls; `failSpanning` makes the spanning producer fail the way kafkajs does with retries off. */
  const producers = (failSpanning: () => Error | undefined = () => undefined) => {
    const calls = { spanning: 0, retrying: [] as { topic: string; partitions: Set<number> }[], acknowledged: [] as string[], perPartition: new Map<string, number[]>() };
    const spanning = {
      sendBatch: async ({ topicMessages }: Batch) => {
        calls.spanning++;
        const failure = failSpanning();
        if (failure) throw failure;
        for (const { topic, messages } of topicMessages) {
          for (const m of messages) {
            calls.acknowledged.push(m.key);
            const at = `${m.partition}:${topic}`;
            calls.perPartition.set(at, [...(calls.perPartition.get(at) ?? []), Number(m.key.slice(1))]);
          }
        }
      },
    };
    const retrying = {
      send: async ({ topic, messages }: { topic: string; messages: { key: string; partition: number }[] }) => {
        calls.retrying.push({ topic, partitions: new Set(messages.map((m) => m.partition)) });
        calls.acknowledged.push(...messages.map((m) => m.key));
      },
    };
    return { calls, spanning, retrying };
  };
  const batch = (n: number, size = 100) => Array.from({ length: n }, (_, i) => message(size, i));

  it('sends a batch for many topic-partitions in one call, each partition in order', async () => {
    const { calls, spanning, retrying } = producers();
    const messages = batch(100);
    await createPartitionedSender(retrying, fourPartitions, spanning).send(messages);
    expect(calls.spanning).toBe(1);
    expect(calls.retrying).toEqual([]);
    expect([...calls.acknowledged].sort()).toEqual(messages.map((m) => m.key).sort());
    expect(calls.perPartition.size).toBeGreaterThan(3);
    for (const order of calls.perPartition.values()) expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('after a failed spanning call (a broker away), sends everything again one topic-partition per call, and keeps to that for a while', async () => {
    const away = Object.assign(new Error('Connection error'), { retriable: true });
    const { calls, spanning, retrying } = producers(() => away);
    const sender = createPartitionedSender(retrying, fourPartitions, spanning);
    const messages = batch(100);
    await sender.send(messages);
    expect(calls.spanning).toBe(1);
    expect(calls.retrying.length).toBeGreaterThan(3);
    for (const call of calls.retrying) expect(call.partitions.size).toBe(1);
    expect([...calls.acknowledged].sort()).toEqual(messages.map((m) => m.key).sort());
    await sender.send(batch(20));
    expect(calls.spanning).toBe(1); // the cluster just failed: not tried again at once
  });

  it('a message the broker refuses in a spanning call is found by sending its partition again, and the next batch spans again', async () => {
    const tooLarge = Object.assign(new Error('Request failed'), { cause: Object.assign(new Error('too large'), { apiId: 'MESSAGE_TOO_LARGE' }) });
    let failures = 1;
    const { calls, spanning, retrying } = producers(() => (failures-- > 0 ? tooLarge : undefined));
    const sender = createPartitionedSender(retrying, fourPartitions, spanning);
    await sender.send(batch(10));
    expect(calls.retrying.length).toBeGreaterThan(1);
    await sender.send(batch(10));
    expect(calls.spanning).toBe(2);
  });

  it('sends a batch with a partition above the batch limit one topic-partition per call, in runs', async () => {
    const { calls, spanning, retrying } = producers();
    const big = Array.from({ length: 8 }, (_, i) => ({ ...message(MAX_SEND_BYTES / 4, i), topic: 't0', partition: 0 }));
    await createPartitionedSender(retrying, fourPartitions, spanning).send([...big, ...batch(10)]);
    expect(calls.spanning).toBe(0);
    expect(calls.retrying.filter((c) => c.topic === 't0' && c.partitions.has(0)).length).toBeGreaterThan(1);
  });
});
