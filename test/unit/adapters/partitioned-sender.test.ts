import fc from 'fast-check';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { byPartition, chunkByBytes, createPartitionedSender, MAX_SEND_BYTES, partitionCounts, UnknownTopicError } from '../../../src/adapters/kafka/partitioned-sender';
import { outboundBytes, type Outbound } from '../../../src/worker/outbound';

/**
 * The sender writes one topic-partition per call (kafkajs drops messages of a multi-broker call whose
 * partitions moved mid-call) in runs below the broker's batch limit; partitions are chosen as kafkajs's and
 * Java's default partitioner would.
 */
const message = (size: number, i: number): Outbound => ({ topic: `t${i % 3}`, key: `k${i}`, value: Buffer.alloc(size), headers: { n: String(i) } });
const fourPartitions = async () => 4;

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
    expect(chunkByBytes(Array.from({ length: 1000 }, (_, i) => message(200, i)), MAX_SEND_BYTES)).toHaveLength(1);
    expect(chunkByBytes([], MAX_SEND_BYTES)).toEqual([]);
  });
});

describe('byPartition', () => {
  it("chooses kafkajs's default partition for a key, keeps a given one, and keeps the order within a partition", async () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    const metadata = Array.from({ length: 4 }, (_, partitionId) => ({ partitionId, leader: 1 }) as PartitionMetadata);
    const messages = Array.from({ length: 200 }, (_, i) => ({ ...message(10, i), partition: i % 50 === 0 ? 3 : undefined }));
    const groups = await byPartition(messages, fourPartitions);
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
    const groups = await byPartition(messages, fourPartitions);
    const placed = [...groups.values()].flat().sort((a, b) => Number(a.headers.n) - Number(b.headers.n));
    expect(placed.map((m) => m.partition)).toEqual([1, 2, 1, 3]);
    expect(placed.every((m) => m.preferredPartition === undefined)).toBe(true);
    expect([...groups.keys()].sort()).toEqual(['1:replies', '2:replies', '3:replies']);
  });

  it('makes one send call per topic-partition and run', async () => {
    const calls: { topic: string; partitions: Set<number | undefined> }[] = [];
    const producer = { send: async (record: { topic: string; messages: { partition?: number }[] }) => void calls.push({ topic: record.topic, partitions: new Set(record.messages.map((m) => m.partition)) }) };
    const sender = createPartitionedSender(producer as never, fourPartitions);
    await sender.send(Array.from({ length: 100 }, (_, i) => message(100, i)));
    expect(calls.length).toBeGreaterThan(3);
    for (const call of calls) expect(call.partitions.size).toBe(1);
  });
});

describe('partitionCounts', () => {
  it('says a topic the cluster does not know is unknown, and remembers that too: a flood naming it costs one metadata request', async () => {
    const asked: string[] = [];
    const admin = {
      fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
        asked.push(topics[0]!);
        if (topics[0] === 'known') return { topics: [{ name: 'known', partitions: [{}, {}] }] } as never;
        throw Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
      },
    };
    const countOf = partitionCounts(admin);
    for (let i = 0; i < 3; i++) await expect(countOf('does.not.exist')).rejects.toBeInstanceOf(UnknownTopicError);
    expect([await countOf('known'), await countOf('known')]).toEqual([2, 2]);
    expect(asked).toEqual(['does.not.exist', 'known']);
  });

  it('lets any other failure through (Kafka away is not "no such topic")', async () => {
    const countOf = partitionCounts({ fetchTopicMetadata: async () => Promise.reject(new Error('Connection timeout')) });
    await expect(countOf('t')).rejects.toThrow('Connection timeout');
  });
});
