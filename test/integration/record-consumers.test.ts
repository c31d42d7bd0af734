import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import pino from 'pino';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { ReplyListener } from '../../src/adapters/kafka/reply-listener';
import { subscribeRecords } from '../../src/adapters/kafka/record-subscription';
import { readTopicRange } from '../../src/adapters/kafka/topic-reader';
import type { KafkaConnection } from '../../src/adapters/kafka/connection';
import { testConfig } from '../support/harness';

/**
 * The record-by-record consumers of src/adapters/kafka on @platformatic/kafka, against a real broker, with
 * a partner's plain kafkajs producer writing: the reply listener reads from the end and misses nothing
 * sent once it started, a subscription hands records in order per partition and resumes after the last
 * handled one, and the topic reader returns a range.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

describe('record-by-record consumers on @platformatic/kafka', () => {
  const config = testConfig();
  const connection: KafkaConnection = { brokers: config.kafka.brokers, clientId: 'record-consumers-test', log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) };
  const kafka = new Kafka({ clientId: 'record-consumers-partner', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const id = randomUUID().slice(0, 8);
  const replies = `record-consumers-replies-${id}`;
  const events = `record-consumers-events-${id}`;
  let producer: Producer;

  beforeAll(async () => {
    producer = kafka.producer();
    await Promise.all([ensureTopicsExist(connection, [replies, events], 2, 1), producer.connect()]);
  });
  afterAll(() => producer.disconnect());

  it('a reply sent the moment start resolved is read, and none of the older ones', async () => {
    await producer.send({ topic: replies, messages: [0, 1, 2, 3].map((n) => ({ partition: n % 2, value: `old-${n}` })) });
    for (let round = 0; round < 5; round++) {
      const seen: string[] = [];
      const listener = await ReplyListener.start(connection, { topics: [replies], groupId: `replies-${id}-${round}`, onMessage: (m) => seen.push(m.value!.toString()) });
      try {
        await producer.send({ topic: replies, messages: [0, 1].map((partition) => ({ partition, value: `new-${round}-${partition}`, headers: { 'x-twice': ['a', 'b'] } })) });
        await until(() => seen.length >= 2);
        await sleep(300);
        expect(seen.sort()).toEqual([`new-${round}-0`, `new-${round}-1`]);
      } finally {
        await listener.stop();
      }
    }
  });

  it('a subscription hands records in order per partition, commits each, and a restart resumes after the last handled', async () => {
    await producer.send({ topic: events, messages: Array.from({ length: 40 }, (_, n) => ({ partition: n % 2, value: String(n) })) });
    const groupId = `events-${id}`;
    const handled: { partition: number; value: number; offset: string }[] = [];
    let failOnce = true;
    const first = subscribeRecords(connection, {
      groupId,
      topics: [events],
      fromBeginning: true,
      partitionsConcurrently: 2,
      onRecord: async (record, _topic, partition) => {
        const value = Number(record.value!.toString());
        if (value === 7 && failOnce) {
          failOnce = false; // a handler failing once: the same record comes again, and the partition waits for it
          throw new Error('handler failed once');
        }
        await sleep(5);
        handled.push({ partition, value, offset: record.offset });
      },
    });
    await first.started;
    await first.joined;
    await until(() => handled.length >= 40);
    await first.stop();
    for (const partition of [0, 1]) {
      const values = handled.filter((h) => h.partition === partition).map((h) => h.value);
      expect(values).toEqual(Array.from({ length: 20 }, (_, n) => 2 * n + partition));
    }

    await producer.send({ topic: events, messages: [40, 41].map((n) => ({ partition: n % 2, value: String(n) })) });
    const again: number[] = [];
    const second = subscribeRecords(connection, { groupId, topics: [events], fromBeginning: true, onRecord: async (record) => void again.push(Number(record.value!.toString())) });
    await second.joined;
    await until(() => again.length >= 2);
    await sleep(500);
    await second.stop();
    expect(again.sort((a, b) => a - b)).toEqual([40, 41]);
  });

  it('a subscription from the end sees a record produced once it joined', async () => {
    const seen: string[] = [];
    const subscription = subscribeRecords(connection, { groupId: `latest-${id}`, topics: [events], fromBeginning: false, onRecord: async (r) => void seen.push(r.value!.toString()) });
    await subscription.joined;
    await producer.send({ topic: events, messages: [{ partition: 1, value: 'after-join' }] });
    await until(() => seen.length >= 1);
    await subscription.stop();
    expect(seen).toEqual(['after-join']);
  });

  it('a handler slower than a rebalance keeps its member in the group: a second member joins while it runs', async () => {
    const topic = `record-consumers-slow-${id}`;
    await ensureTopicsExist(connection, [topic], 2, 1);
    await producer.send({ topic, messages: [0, 1].map((partition) => ({ partition, value: `slow-${partition}` })) });
    const groupId = `slow-${id}`;
    let slowStarted = false;
    const slow = subscribeRecords(connection, {
      groupId,
      topics: [topic],
      fromBeginning: true,
      partitionsConcurrently: 2,
      onRecord: async () => {
        slowStarted = true;
        await sleep(25_000);
      },
    });
    await until(() => slowStarted);
    const began = Date.now();
    const second = subscribeRecords(connection, { groupId, topics: [topic], fromBeginning: true, onRecord: async () => undefined });
    try {
      await second.joined;
      // kafkajs heartbeats between records only: its member would hold the rebalance until the handler ended.
      expect(Date.now() - began).toBeLessThan(15_000);
    } finally {
      await Promise.all([second.stop(), slow.stop()]);
    }
  }, 90_000);

  it("an idle listener and an idle subscription stop in about a fetch wait, not the client's 5 s", async () => {
    const listener = await ReplyListener.start(connection, { topics: [replies], groupId: `idle-replies-${id}`, onMessage: () => undefined });
    const subscription = subscribeRecords(connection, { groupId: `idle-events-${id}`, topics: [events], fromBeginning: false, onRecord: async () => undefined });
    await subscription.joined;
    await sleep(1000); // their fetches are now held by the broker
    const began = Date.now();
    await Promise.all([listener.stop(), subscription.stop()]);
    expect(Date.now() - began).toBeLessThan(2500);
  });

  it('joined rejects when the subscription cannot start', async () => {
    const subscription = subscribeRecords(connection, { groupId: `missing-${id}`, topics: [`no-such-topic-${id}`], fromBeginning: true, onRecord: async () => undefined });
    await expect(subscription.joined).rejects.toThrow();
    await subscription.stop();
  });

  it('the topic reader returns a range of one partition, in offset order, with every header value', async () => {
    const read = await readTopicRange(connection, replies, { groupId: `reader-${id}`, partition: 1, offset: '1', count: 2 });
    expect(read.map((r) => [r.partition, r.record.offset])).toEqual([
      [1, '1'],
      [1, '2'],
    ]);
    const all = await readTopicRange(connection, replies, { groupId: `reader-all-${id}`, count: 100 });
    // Every record of both partitions once, in offset order (a partner's kafkajs send retried may have written a batch twice).
    for (const partition of [0, 1]) {
      const offsets = all.filter((r) => r.partition === partition).map((r) => Number(r.record.offset));
      expect(offsets).toEqual(offsets.map((_, n) => n));
      expect(offsets.length).toBeGreaterThanOrEqual(7);
    }
    const twice = all.find((r) => r.record.value!.toString().startsWith('new-'))!;
    expect(twice.record.headers!['x-twice']).toEqual([Buffer.from('a'), Buffer.from('b')]);
  });
});
