import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { startLocalKafka, type LocalKafka } from '../../dev/stack';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import type { KafkaConnection } from '../../src/adapters/kafka/connection';
import { ReplyListener } from '../../src/adapters/kafka/reply-listener';
import { subscribeRecords } from '../../src/adapters/kafka/record-subscription';
import { seconds } from './support/report';

jest.setTimeout(240_000); // jest ignores testTimeout in a project's configuration

/**
 * The record-by-record consumers (@platformatic/kafka) when their one broker stops for 10 s mid-stream and
 * starts again: a subscription hands every record, in order per partition, before and after; a reply
 * listener reads the replies sent once the broker is back. Neither is restarted by the test.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 10 s by default: within the client's own retries (20 x 500 ms); RECORD_OUTAGE_MS=30000 outlasts them, so the streams fail and are consumed again. */
const OUTAGE_MS = Number(process.env.RECORD_OUTAGE_MS ?? 10_000);
const PER_PHASE = 200;

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(50);
  }
}

describe('record consumers: the broker stopped for 10 s, then started again', () => {
  let kafka: LocalKafka;

  beforeAll(async () => {
    kafka = await startLocalKafka();
  });
  afterAll(() => kafka?.dispose());

  it('the subscription hands every record in order and the listener reads the replies sent after', async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const connection: KafkaConnection = { brokers: kafka.brokers, clientId: 'outage-consumers', log };
    const partner = new Kafka({ clientId: 'outage-partner', brokers: kafka.brokers, logLevel: logLevel.NOTHING, retry: { retries: 30 } });
    await ensureTopicsExist(connection, ['outage.events', 'outage.replies'], 2, 1);
    const producer = partner.producer();
    await producer.connect();
    const send = (topic: string, from: number, count: number) =>
      producer.send({ topic, messages: Array.from({ length: count }, (_, n) => ({ partition: (from + n) % 2, value: String(from + n) })) });

    const handled: { partition: number; value: number }[] = [];
    const subscription = subscribeRecords(connection, {
      groupId: 'outage-events',
      topics: ['outage.events'],
      fromBeginning: true,
      partitionsConcurrently: 2,
      onRecord: async (record, _topic, partition) => {
        await sleep(20); // still handling when the broker stops
        handled.push({ partition, value: Number(record.value!.toString()) });
      },
    });
    const replies: number[] = [];
    const listener = await ReplyListener.start(connection, { topics: ['outage.replies'], groupId: 'outage-replies', onMessage: (m) => replies.push(Number(m.value!.toString())) });
    try {
      await subscription.joined;
      await send('outage.events', 0, PER_PHASE);
      await until(() => handled.length >= 40, 60_000);
      await kafka.stop();
      const handledAtStop = handled.length;
      await sleep(OUTAGE_MS);
      await kafka.start();
      const back = Date.now();
      await send('outage.events', PER_PHASE, PER_PHASE);
      await send('outage.replies', 0, 10);
      await until(() => new Set(handled.map((h) => h.value)).size >= 2 * PER_PHASE && replies.length >= 10, 120_000);
      await sleep(1000);
      const values = handled.map((h) => h.value);
      const duplicates = values.length - new Set(values).size;
      console.log(
        `record subscription, broker stopped ${OUTAGE_MS / 1000} s: ${2 * PER_PHASE} sent, ${new Set(values).size} handled, ${duplicates} handled twice; ${handledAtStop} handled at the stop, ` +
          `all ${seconds(back)} after the broker was back; replies read ${replies.length}/10; warnings: ${[...new Set(warnings)].join(' | ')}`,
      );
      for (const partition of [0, 1]) {
        const firsts = [...new Set(handled.filter((h) => h.partition === partition).map((h) => h.value))];
        expect(firsts).toEqual(Array.from({ length: PER_PHASE }, (_, n) => 2 * n + partition));
      }
      expect(replies.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, n) => n));
    } finally {
      await Promise.allSettled([subscription.stop(), listener.stop(), producer.disconnect()]);
    }
  });
});
