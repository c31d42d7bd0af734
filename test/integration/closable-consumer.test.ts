import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer, type ConsumerConfig } from 'kafkajs';
import { createConsumer, DEFAULT_FETCH_MAX_WAIT_MS } from '../../src/adapters/kafka/closable-consumer';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { testConfig, testConnection } from '../support/harness';

/**
 * kafkajs sets its restart timer after a crash only once the CRASH event and restartOnFailure are through,
 * so a disconnect() from a CRASH listener (ReplyListener.start does this when its consumer crashes) cleared
 * nothing and the consumer started again. On a cluster that is gone it then restarts for as long as the
 * process lives — a closed client whose process never exits; the fault suite's jest once waited on two.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RESTART_AFTER_MS = 200;

/** A consumer whose handler always fails (one try, then a retriable crash), closed from its CRASH listener. */
async function crashAndCloseOnCrash(topic: string, make: (config: ConsumerConfig) => Consumer) {
  const consumer = make({ groupId: `closable-${randomUUID()}`, retry: { retries: 0, initialRetryTime: RESTART_AFTER_MS } });
  const seen = { handled: 0, joins: 0, crashes: 0, joinsAfterClose: 0 };
  let closed = false;
  let failing = true;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    seen.joins++;
    if (closed) seen.joinsAfterClose++;
  });
  consumer.on(consumer.events.CRASH, () => {
    seen.crashes++;
    if (closed) return;
    closed = true;
    void consumer.disconnect();
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async () => {
      seen.handled++;
      if (failing) throw Object.assign(new Error('handler failed'), { retriable: true });
    },
  });
  const deadline = Date.now() + 30_000;
  while (seen.crashes === 0 && Date.now() < deadline) await sleep(50);
  await sleep(RESTART_AFTER_MS * 10); // a restart would have joined again by now
  const observed = { ...seen };
  failing = false; // a consumer that did start again handles the record, then ends here
  await sleep(RESTART_AFTER_MS * 5);
  await consumer.disconnect();
  return observed;
}

describe('a consumer closed from its CRASH listener stays closed', () => {
  const config = testConfig();
  const kafka = new Kafka({ clientId: 'closable-consumer-test', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const topic = `closable-consumer-${randomUUID()}`;

  beforeAll(async () => {
    await ensureTopicsExist(testConnection(config), [topic], 1, 1);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'the one record, which the handler refuses' }] });
    await producer.disconnect();
  });

  it('kafkajs on its own starts it again (the defect worked around)', async () => {
    const seen = await crashAndCloseOnCrash(topic, (c) => kafka.consumer(c));
    expect(seen.crashes).toBeGreaterThanOrEqual(1);
    expect(seen.joinsAfterClose).toBeGreaterThanOrEqual(1);
  });

  it('createConsumer does not start it again', async () => {
    const seen = await crashAndCloseOnCrash(topic, (c) => createConsumer(kafka, c));
    expect(seen).toEqual({ handled: 1, joins: 1, crashes: 1, joinsAfterClose: 0 });
  });
});

/**
 * kafkajs's disconnect() waits for the fetch in flight, which the broker holds for maxWaitTimeInMs when
 * there is nothing to read: 5 s by default, paid by every client, simulator and CLI read at close.
 */
describe('closing an idle consumer', () => {
  const config = testConfig();
  const kafka = new Kafka({ clientId: 'closable-consumer-close', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
  const topic = `closable-idle-${randomUUID()}`;

  beforeAll(async () => {
    await ensureTopicsExist(testConnection(config), [topic], 1, 1);
  });

  /** Joins an empty topic, lets a fetch go out and wait on the broker, then times disconnect(). */
  async function closeWhileIdle(consumer: Consumer): Promise<number> {
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    const fetching = new Promise<void>((resolve) => consumer.on(consumer.events.FETCH_START, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await joined;
    await fetching;
    await sleep(300); // the fetch is now held by the broker
    const began = Date.now();
    await consumer.disconnect();
    return Date.now() - began;
  }

  it('kafkajs on its own waits out its 5 s long poll (the defect worked around)', async () => {
    expect(await closeWhileIdle(kafka.consumer({ groupId: `idle-${randomUUID()}` }))).toBeGreaterThanOrEqual(3_000);
  });

  it('createConsumer closes within its shorter poll', async () => {
    expect(DEFAULT_FETCH_MAX_WAIT_MS).toBeLessThanOrEqual(1_000);
    expect(await closeWhileIdle(createConsumer(kafka, { groupId: `idle-${randomUUID()}` }))).toBeLessThan(2_500);
  });
});
