import type { InboundRecord } from '../../contract/transport';
import { Backoff, sleep } from '../../shared/retry';
import type { KafkaConnection } from './connection';
import { createGroupConsumer } from './group-consumer';
import { CAUGHT_UP_COMMIT_MS, PartitionStream, type PartitionBatch } from './partition-stream';

/**
 * A consumer fed record by record, in order per partition: the client's event subscriptions, the webhooks'
 * partner dispatchers and the NP simulator. It starts at once.
 */
export interface RecordSubscription {
  /** Settles once connected, joined and consuming; rejects when any of it fails. */
  readonly started: Promise<void>;
  /**
   * Settles once the consumer has joined its group, been assigned partitions and knows where it starts in
   * each (a record produced afterwards is seen); rejects when it fails first.
   */
  readonly joined: Promise<void>;
  stop(): Promise<void>;
}

export interface RecordSubscriptionOptions {
  groupId: string;
  topics: string[];
  /** Where a group without committed offsets starts. */
  fromBeginning: boolean;
  /**
   * Called for each record; the next record of the partition waits for it. Its offset is committed once it
   * resolves; a rejection (other than at stop) hands the same record again after a pause.
   */
  onRecord: (record: InboundRecord, topic: string, partition: number) => Promise<void>;
  /** Partitions handled at once, each in order (default 1). */
  partitionsConcurrently?: number;
}

/** Records waiting in the subscription (all partitions) past which the stream pauses, and below which it resumes. */
const QUEUE_HIGH_WATER = 1000;
const QUEUE_LOW_WATER = 250;
/** Pause before a record whose handler failed is handed again, doubling up to the maximum. */
const HANDLER_BACKOFF = { initialMs: 500, maxMs: 30_000, jitter: 'none' } as const;

/**
 * The client's consumer is one stream of records for all its partitions, and it heartbeats on its own
 * timer, so a slow handler (a webhook retried for minutes) keeps its group. On the per-partition stream
 * (partition-stream.ts), records are handed one at a time per partition, `partitionsConcurrently`
 * partitions at once. Each record is committed once handled (never backwards: one record of a partition
 * at a time), so a restart resumes after the last handled one.
 */
export function subscribeRecords(connection: KafkaConnection, options: RecordSubscriptionOptions): RecordSubscription {
  const consumer = createGroupConsumer(connection, options.groupId);
  const log = connection.log.child({ groupId: options.groupId });
  let stopping = false;

  let settleJoined!: (error?: unknown) => void;
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- it forwards the consumer's failure as it came
  const joined = new Promise<void>((resolve, reject) => (settleJoined = (error) => (error === undefined ? resolve() : reject(error))));
  joined.catch(() => undefined); // a caller that never waits for the join must not see an unhandled rejection

  /** Hands the record until it is handled, the subscription stops or the partition goes elsewhere; then commits it. */
  const handle = async (batch: PartitionBatch): Promise<bigint | undefined> => {
    const {
      topic,
      partition,
      records: [record],
      leaderEpoch,
    } = batch;
    const offset = BigInt(record.offset);
    for (const backoff = new Backoff(HANDLER_BACKOFF); ;) {
      try {
        await options.onRecord(record, topic, partition);
        break;
      } catch (error) {
        if (stopping) return undefined;
        log.warn({ err: error, topic, partition, offset: record.offset }, 'record handler failed; handing the record again');
        await sleep(backoff.next());
        if (stopping || batch.isStale()) return undefined; // the partition's new owner reads it from the committed offset
      }
    }
    await consumer.commit({ offsets: [{ topic, partition, offset: offset + 1n, leaderEpoch }] }).catch((error: unknown) =>
      // the record is handled; the next commit covers its offset
      log.warn({ err: error, topic, partition }, 'commit failed; it goes with the next one'),
    );
    return offset + 1n;
  };

  let first = true;
  const stream = new PartitionStream({
    consumer,
    log,
    consumeOptions: () => ({ topics: options.topics, mode: 'committed', fallbackMode: options.fromBeginning ? 'earliest' : 'latest', autocommit: false }),
    onBatch: handle,
    maxBatch: 1,
    highWater: QUEUE_HIGH_WATER,
    lowWater: QUEUE_LOW_WATER,
    assignedOnly: true,
    onStarted: (started) => {
      if (!first) return;
      first = false;
      started.once('offsets', () => settleJoined());
      started.once('error', (error: Error) => settleJoined(error));
    },
    onFatal: (error) => log.error({ err: error }, 'record stream refused for good; the subscription stops consuming'),
  });

  const started = stream.start(options.partitionsConcurrently ?? 1);
  started.catch((error: unknown) => settleJoined(error));
  // partitions read to their end are committed past the transaction markers after their last record, so
  // the group's lag comes back to 0 behind an exactly-once writer (partition-stream.ts caughtUp)
  const caughtUpTimer = setInterval(() => {
    const offsets = stream.caughtUp();
    if (offsets.length === 0) return;
    consumer.commit({ offsets }).catch((error: unknown) => log.warn({ err: error }, 'commit past transaction markers failed; the next commit covers it'));
  }, CAUGHT_UP_COMMIT_MS).unref();

  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearInterval(caughtUpTimer);
    await started.catch(() => undefined);
    // The records in hand finish (and commit) first; those still queued are read again by the next start.
    await stream.stop();
  };

  return { started, joined, stop };
}
