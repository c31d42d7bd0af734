import type { InboundRecord } from '../../contract/transport';
import { createKafka, type KafkaConnection } from './kafka';
import { createConsumer } from './closable-consumer';

/**
 * A consumer fed record by record, in order per partition: the client's event subscriptions and the NP
 * simulator. It starts at once.
 */
export interface RecordSubscription {
  /** Settles once connected, subscribed and running; rejects when any of it fails. */
  readonly started: Promise<void>;
  /** Settles once the consumer has joined its group and been assigned partitions; rejects when it crashes first. */
  readonly joined: Promise<void>;
  stop(): Promise<void>;
}

export interface RecordSubscriptionOptions {
  groupId: string;
  topics: string[];
  /** Where a group without committed offsets starts. */
  fromBeginning: boolean;
  /** Called for each record; the next record of the partition waits for it. */
  onRecord: (record: InboundRecord, topic: string, partition: number) => Promise<void>;
  /** Partitions handled at once, each in order (default 1). */
  partitionsConcurrently?: number;
}

/**
 * kafkajs heartbeats only between records: a handler slower than the session timeout (a webhook retried
 * for minutes) would cost the member its group. While one runs, the member heartbeats every few seconds.
 */
const HANDLER_HEARTBEAT_MS = 3000;

async function heartbeatingWhile<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  const timer = setInterval(() => heartbeat().catch(() => undefined), HANDLER_HEARTBEAT_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

export function subscribeRecords(connection: KafkaConnection, options: RecordSubscriptionOptions): RecordSubscription {
  const consumer = createConsumer(createKafka(connection), { groupId: options.groupId, allowAutoTopicCreation: false });
  const joined = new Promise<void>((resolve, reject) => {
    consumer.on(consumer.events.GROUP_JOIN, () => resolve());
    consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
  });
  joined.catch(() => undefined); // a caller that never waits for the join must not see an unhandled rejection
  const started = (async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
    await consumer.run({
      partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
      eachMessage: ({ topic, partition, message, heartbeat }) => heartbeatingWhile(options.onRecord(message, topic, partition), heartbeat),
    });
  })();
  return { started, joined, stop: () => consumer.disconnect() };
}
