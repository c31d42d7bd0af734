import type { Message, MessagesStream } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { closeGroupConsumer, createGroupConsumer, isFatalConsumerError } from './group-consumer';
import { inbound } from './inbound-record';

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

type Consumed = Message<Buffer, Buffer, Buffer, Buffer>;

/** Records waiting in the subscription (all partitions) past which the stream pauses, and below which it resumes. */
const QUEUE_HIGH_WATER = 1000;
const QUEUE_LOW_WATER = 250;
/** Pause before a record whose handler failed is handed again, doubling up to the maximum. */
const RETRY_INITIAL_MS = 500;
const RETRY_MAX_MS = 30_000;
/** Pause before a failed stream is consumed again. */
const RESTART_DELAY_MS = 1000;

interface PartitionQueue {
  topic: string;
  partition: number;
  records: Consumed[];
  /** The offset after the last record taken in: records below it are a rewound stream's repeats. */
  next?: bigint;
  busy: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The client's consumer is one stream of records for all its partitions, and it heartbeats on its own
 * timer, so a slow handler (a webhook retried for minutes) keeps its group. The stream's records are
 * queued per partition and handed one at a time per partition, `partitionsConcurrently` partitions at
 * once (round robin); the stream pauses while too many wait. Each record is committed once handled (the
 * record's own commit: single-flight, never backwards), so a restart resumes after the last handled one.
 * A rejoin rewinds the stream to the committed offsets: records already queued or in hand are not taken
 * in twice, and those of partitions no longer assigned are dropped.
 */
export function subscribeRecords(connection: KafkaConnection, options: RecordSubscriptionOptions): RecordSubscription {
  const consumer = createGroupConsumer(connection, options.groupId);
  const limit = Math.max(1, options.partitionsConcurrently ?? 1);
  const queues = new Map<string, PartitionQueue>();
  const ready: PartitionQueue[] = [];
  const inHand = new Set<Promise<void>>();
  let waiting = 0;
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;

  let settleJoined!: (error?: unknown) => void;
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- it forwards the consumer's failure as it came
  const joined = new Promise<void>((resolve, reject) => (settleJoined = (error) => (error === undefined ? resolve() : reject(error))));
  joined.catch(() => undefined); // a caller that never waits for the join must not see an unhandled rejection

  const queueOf = (topic: string, partition: number): PartitionQueue => {
    const key = `${topic}/${partition}`;
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = { topic, partition, records: [], busy: false }));
    return queue;
  };
  const assigned = (queue: PartitionQueue) => consumer.assignments?.some((a) => a.topic === queue.topic && a.partitions.includes(queue.partition)) ?? false;

  const flowControl = () => {
    if (!stream) return;
    // asked of the stream itself: the client pauses and resumes it too, around a rebalance
    const paused = stream.isPaused();
    if (!paused && waiting > QUEUE_HIGH_WATER) stream.pause();
    else if (paused && waiting < QUEUE_LOW_WATER && !stopping) stream.resume();
  };

  const drop = (queue: PartitionQueue) => {
    waiting -= queue.records.length;
    queue.records = [];
    queue.next = undefined;
  };

  /** Hands a record until it is handled, the subscription stops or the partition goes elsewhere; true once handled. */
  const handle = async (queue: PartitionQueue, record: Consumed): Promise<boolean> => {
    for (let delay = RETRY_INITIAL_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        await options.onRecord(inbound(record), record.topic, record.partition);
        return true;
      } catch (error) {
        if (stopping) return false;
        connection.log.warn({ err: error, topic: queue.topic, partition: queue.partition, offset: record.offset.toString() }, 'record handler failed; handing the record again');
        await sleep(delay);
        if (stopping) return false;
        if (!assigned(queue)) {
          drop(queue); // the partition's new owner reads it from the committed offset
          return false;
        }
      }
    }
  };

  const pump = () => {
    while (!stopping && inHand.size < limit && ready.length > 0) {
      const queue = ready.shift()!;
      const record = queue.records.shift();
      if (!record) continue;
      waiting--;
      queue.busy = true;
      const work = handle(queue, record).then(async (handled) => {
        if (!handled) return;
        try {
          await record.commit();
        } catch (error) {
          // The offset stays queued in the stream and goes with the next commit; the record is handled.
          connection.log.warn({ err: error, topic: queue.topic, partition: queue.partition }, 'commit failed; it goes with the next one');
        }
      });
      inHand.add(work);
      void work.finally(() => {
        inHand.delete(work);
        queue.busy = false;
        if (queue.records.length > 0) ready.push(queue);
        flowControl();
        pump();
      });
    }
    flowControl();
  };

  const take = (record: Consumed) => {
    if (stopping) return;
    const queue = queueOf(record.topic, record.partition);
    if (!assigned(queue)) return; // fetched before a rebalance took the partition elsewhere
    if (queue.next !== undefined && record.offset < queue.next) return;
    queue.next = record.offset + 1n;
    queue.records.push(record);
    waiting++;
    if (!queue.busy && queue.records.length === 1) ready.push(queue);
    pump();
  };

  // After a rebalance: what was queued for a partition this member lost is someone else's now.
  consumer.on('consumer:group:join', () => {
    for (const queue of queues.values()) {
      if (assigned(queue)) continue;
      drop(queue);
      const at = ready.indexOf(queue);
      if (at >= 0) ready.splice(at, 1);
    }
    flowControl();
  });

  const consume = async (first: boolean): Promise<void> => {
    const consumed = await consumer.consume({
      topics: options.topics,
      mode: 'committed',
      fallbackMode: options.fromBeginning ? 'earliest' : 'latest',
      autocommit: false,
    });
    stream = consumed;
    if (first) consumed.once('offsets', () => settleJoined());
    consumed.on('data', take);
    consumed.on('error', (error: Error) => {
      if (first) settleJoined(error);
      if (stopping) return;
      if (isFatalConsumerError(error)) {
        connection.log.error({ err: error, groupId: options.groupId }, 'record stream refused for good; the subscription stops consuming');
        return;
      }
      connection.log.warn({ err: error, groupId: options.groupId }, 'record stream failed; consuming again from the committed offsets');
      restartSoon();
    });
    flowControl();
  };

  const restartSoon = () => {
    if (stopping || restartTimer) return;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      const failed = stream;
      stream = undefined;
      void (failed?.close() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => (stopping ? undefined : consume(false)))
        .catch((error: unknown) => {
          if (isFatalConsumerError(error)) {
            connection.log.error({ err: error, groupId: options.groupId }, 'record stream refused for good; the subscription stops consuming');
            return;
          }
          connection.log.warn({ err: error, groupId: options.groupId }, 'record stream could not be consumed again; retrying');
          restartSoon();
        });
    }, RESTART_DELAY_MS);
  };

  const started = consume(true);
  started.catch((error: unknown) => settleJoined(error));

  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearTimeout(restartTimer);
    stream?.pause();
    await started.catch(() => undefined);
    // The records in hand finish (and commit) first; those still queued are read again by the next start.
    await Promise.allSettled([...inHand]);
    await closeGroupConsumer(consumer, connection);
  };

  return { started, joined, stop };
}
