import type { ConsumeOptions, Consumer, ConsumerGroupJoinPayload, Message, MessagesStream } from '@platformatic/kafka';
import type { Logger } from '../../contract/log';
import type { InboundRecord } from '../../contract/transport';
import { Backoff, sleep, type BackoffSettings } from '../../shared/retry';
import { closeGroupConsumer, isFatalConsumerError } from './group-consumer';
import { inbound } from './inbound-record';
import { kafkaErrorType } from './send-refusal';

type Fetched = Message<Buffer, Buffer, Buffer, Buffer>;
type Stream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;
type Consumer_ = Consumer<Buffer, Buffer, Buffer, Buffer>;

/** A partition's queued records handed out together. */
export interface PartitionBatch {
  topic: string;
  partition: number;
  records: InboundRecord[];
  /** The leader epoch of the newest record fetched (-1 when unknown): a commit of these offsets names it. */
  leaderEpoch: number;
  /** True once the partition went to another member (or went and came back) since the batch was handed out. */
  isStale(): boolean;
  /**
   * Says every record of the batch is in hand (its outputs on their way): the partition's next batch may be
   * handed out before this one settles. What this batch then does not resolve still comes again, in offset
   * order with whatever is queued.
   */
  release(): void;
}

export interface PartitionStreamOptions {
  consumer: Consumer_;
  log: Logger;
  /** What each new stream consumes and from where; asked again each time the stream is consumed again. */
  consumeOptions: () => ConsumeOptions<Buffer, Buffer, Buffer, Buffer>;
  /**
   * Handles a batch and tells the offset after the last record done: the records from it on come again
   * (first in their partition's queue). A rejection is logged and the whole batch comes again.
   */
  onBatch: (batch: PartitionBatch) => Promise<bigint | undefined>;
  /** The most records one batch takes (default: all queued). */
  maxBatch?: number;
  /** Records waiting (partitions not held) past which the stream pauses, and at or below which it resumes (default: no limit). */
  highWater?: number;
  lowWater?: number;
  /** Records a held partition may queue before the stream pauses altogether (the hold then costs every partition). */
  heldLimit?: number;
  /** The wait before consuming again after the stream failed, growing while it keeps failing (default 1 s, not growing). */
  restartBackoff?: BackoffSettings;
  /** Whether records of partitions this member is not assigned are dropped (false for a reader given its offsets). */
  assignedOnly: boolean;
  /** Called once per stream started. */
  onStarted?: (stream: Stream) => void;
  /** Called when the stream failed (not for good); true to consume again without a wait. */
  onFailed?: (error: Error) => Promise<boolean>;
  /** Called before each new stream after a failure or a changed set of topics (a commit of what was resolved). */
  beforeConsumingAgain?: () => Promise<void>;
  /** Called once when the cluster refused the consumer for good: it stops consuming. */
  onFatal: (error: Error) => void;
}

export interface PartitionQueue {
  topic: string;
  partition: number;
  records: { record: InboundRecord; offset: bigint }[];
  /** The offset after the last record taken in: one below it, fetched again after a restart, is a duplicate. */
  next?: bigint;
  leaderEpoch: number;
  /** Held by the user: its records stay queued, the other partitions flow. */
  paused: boolean;
  /** A batch of the partition is handed out and not released: no other is handed out meanwhile. */
  busy: boolean;
  /** Batches handed out and not settled (a released one included). */
  inFlight: number;
  /**
   * A batch's records came back while a later batch of the partition was still in flight: nothing is handed
   * out until that one settled too. Handed out before, a batch would hold the returned records and those queued
   * behind the one in flight, not its own: their outputs would commit past records not answered yet.
   */
  rewound: boolean;
  /** The offset before which every record taken in was resolved by a settled batch. */
  settledTo?: bigint;
  /** The last position reported caught up (caughtUp): reported once. */
  caughtUpTo?: bigint;
  /** Bumped when the partition is revoked: a batch of an older epoch is stale. */
  epoch: number;
}

/** Two runs of queued records in offset order, merged in offset order, each offset once. */
export function mergeByOffset<T extends { offset: bigint }>(a: T[], b: T[]): T[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const merged: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i].offset <= b[j].offset) ? a[i++] : b[j++];
    if (merged.length === 0 || merged[merged.length - 1].offset < next.offset) merged.push(next);
  }
  return merged;
}

const key = (topic: string, partition: number) => `${topic}|${partition}`;

/** A member of a group in one generation, as a join reports it. */
export interface Membership {
  memberId: string;
  generationId: number;
}

/**
 * What a join means for the records a member holds in memory: `first` (nothing held yet), `repeat` (the
 * client told the same generation again) or `rebalanced`. After a rebalance every partition is read again
 * from the group's committed offset, as Kafka's eager protocol does: an older generation's units in flight
 * fail (their offsets are refused) and their records must not come back from memory after a newer
 * generation's units of the same partition went out (those would commit an offset past records never
 * answered); a partition this member has again may have been another's meanwhile (a member whose session
 * expired while it was stopped joins again as a new one), who handled and committed what memory still holds.
 */
export function joinKind(previous: Membership | undefined, joined: Membership): 'first' | 'repeat' | 'rebalanced' {
  if (previous === undefined) return 'first';
  return previous.memberId === joined.memberId && previous.generationId === joined.generationId ? 'repeat' : 'rebalanced';
}

/** How often an owner commits the positions `caughtUp` reports. */
export const CAUGHT_UP_COMMIT_MS = 1000;

type Limits = Pick<PartitionStreamOptions, 'highWater' | 'lowWater' | 'heldLimit'>;

/** Whether a stream on `topics`, `paused` now, should pause for the records its partitions' queues hold. */
export function shouldPause(queues: Iterable<Pick<PartitionQueue, 'records' | 'paused'>>, pausedTopics: ReadonlySet<string>, topics: readonly string[], paused: boolean, limits: Limits): boolean {
  const { highWater = Infinity, lowWater = highWater, heldLimit = Infinity } = limits;
  let waiting = 0;
  for (const queue of queues) {
    if (!queue.paused) waiting += queue.records.length;
    else if (queue.records.length > heldLimit) return true;
  }
  if (topics.length > 0 && topics.every((topic) => pausedTopics.has(topic))) return true;
  return waiting > (paused ? lowWater : highWater);
}

/**
 * One stream of a @platformatic/kafka consumer (every assigned partition's records) turned into batches
 * per partition, as every consumer of the service needs it:
 * - the records are queued per partition and each partition's queued records are handed out as one batch,
 *   one batch in flight per partition and at most `concurrency` at once, the partition that waited longest first;
 * - a partition is held without the client's help (it has no per-partition pause): a paused partition's
 *   records stay queued while the others flow; what a batch did not resolve comes again first, once the
 *   partition's later batches in flight settled too (theirs then come again with it, in offset order);
 * - the stream pauses while too many records wait (high water, or the held limit behind a hold);
 * - after the stream failed (a broker lost for longer than the client's retries) it is consumed again with
 *   a growing wait, and a record fetched again that was already taken in is dropped as a duplicate;
 * - after a rebalance, what was queued for a partition that went elsewhere is dropped (its new owner reads it).
 */
export class PartitionStream {
  private stream?: Stream;
  /** The topics the current stream consumes. */
  private streamTopics: string[] = [];
  private running = false;
  private stopped = false;
  /** Batches handed out and not released (at most `concurrency`). */
  private busy = 0;
  /** Batches handed out and not settled: stopping waits for them. */
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private pumpScheduled = false;
  private readonly queues = new Map<string, PartitionQueue>();
  private readonly pausedTopics = new Set<string>();
  private readonly restartBackoff: Backoff;
  private concurrency = 1;
  private membership: Membership | undefined;

  constructor(private readonly options: PartitionStreamOptions) {
    this.restartBackoff = new Backoff(options.restartBackoff ?? { initialMs: 1000, maxMs: 1000, jitter: 'none' });
    options.consumer.on('consumer:group:join', ({ memberId, generationId }: ConsumerGroupJoinPayload) => this.joined({ memberId, generationId: generationId ?? -1 }));
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The topics the current stream consumes (none while it is being consumed again). */
  get topics(): readonly string[] {
    return this.stream ? this.streamTopics : [];
  }

  /** Starts consuming, `concurrency` batches in flight at most (each of another partition); rejects when the first stream cannot be started. */
  async start(concurrency: number): Promise<void> {
    this.concurrency = Math.max(1, concurrency);
    this.running = true;
    await this.consume();
  }

  /** Closes the stream and consumes again from where `consumeOptions` says (a changed set of topics). */
  async consumeAgain(): Promise<void> {
    const current = this.stream;
    if (!this.running || !current) return; // not started yet, or a restart under way: its new stream takes the new set
    this.stream = undefined;
    await current.close().catch(() => undefined);
    this.restartBackoff.reset();
    await this.restart(false);
  }

  /** Stops handing out the partitions' records (all of a topic's, or those named) until resumed. */
  pause(topics: { topic: string; partitions?: number[] }[]): void {
    this.setPaused(topics, true);
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    this.setPaused(topics, false);
    this.pump();
  }

  /** The offset after the last record taken in from the partition, if any was since it was assigned. */
  nextOffset(topic: string, partition: number): bigint | undefined {
    return this.queues.get(key(topic, partition))?.next;
  }

  /**
   * Partitions read to the end of what the stream fetched, past records that are no data: transaction
   * markers and aborted records, which a consumer never sees. Their position is where the stream fetches
   * next; committed, it leaves no lag behind a transaction's marker (as Kafka's own consumers commit their
   * position). Only partitions with nothing queued, nothing in flight and every record taken in resolved,
   * while the stream holds no record undelivered; each position is reported once.
   */
  caughtUp(): { topic: string; partition: number; offset: bigint; leaderEpoch: number }[] {
    const stream = this.stream;
    if (!stream || stream.readableLength > 0) return [];
    const positions: { topic: string; partition: number; offset: bigint; leaderEpoch: number }[] = [];
    for (const queue of this.queues.values()) {
      if (queue.records.length > 0 || queue.inFlight > 0 || queue.next === undefined || queue.settledTo !== queue.next) continue;
      const fetchAt = stream.offsetsToFetch.get(`${queue.topic}:${queue.partition}`);
      if (fetchAt === undefined || fetchAt <= queue.next || fetchAt === queue.caughtUpTo || !this.assigned(queue.topic, queue.partition)) continue;
      queue.caughtUpTo = fetchAt;
      positions.push({ topic: queue.topic, partition: queue.partition, offset: fetchAt, leaderEpoch: queue.leaderEpoch });
    }
    return positions;
  }

  /** Queues records the stream could not fetch itself (a refused batch's neighbours and its placeholder). */
  inject(topic: string, partition: number, records: InboundRecord[]): void {
    const queue = this.queueOf(topic, partition);
    for (const record of records) this.push(queue, record, BigInt(record.offset));
    this.pump();
  }

  /** Stops: the batches in flight finish, then the stream and the consumer close. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    this.stream?.pause();
    await this.whenIdle();
    await this.stream?.close().catch(() => undefined);
    this.stream = undefined;
    await closeGroupConsumer(this.options.consumer, this.options);
  }

  /** Marks the stream stopped for good without closing anything (the owner does). */
  halt(): void {
    this.running = false;
  }

  private async consume(): Promise<void> {
    const consumeOptions = this.options.consumeOptions();
    const stream = await this.options.consumer.consume(consumeOptions);
    if (!this.running) {
      await stream.close().catch(() => undefined);
      return;
    }
    this.stream = stream;
    this.streamTopics = consumeOptions.topics;
    this.restartBackoff.reset();
    // a stream replaced (consumeAgain) may still deliver what it had fetched: from positions no longer ours
    stream.on('data', (record: Fetched) => this.stream === stream && this.take(record));
    stream.on('error', (error: Error) => void this.restartAfter(stream, error));
    this.flowControl();
    this.options.onStarted?.(stream);
  }

  private async restartAfter(failed: Stream, error: Error): Promise<void> {
    if (this.stream !== failed || !this.running) return;
    this.stream = undefined;
    await failed.close().catch(() => undefined);
    if (isFatalConsumerError(error)) return this.fail(error);
    const atOnce = (await this.options.onFailed?.(error)) ?? false;
    if (!atOnce) this.options.log.warn({ err: error.message, type: kafkaErrorType(error) }, 'the consumer stream failed; consuming again');
    await this.restart(atOnce);
  }

  /** Starts a new stream, retrying with a growing wait until one runs. */
  private async restart(atOnce: boolean): Promise<void> {
    await this.options.beforeConsumingAgain?.();
    for (let wait = atOnce ? 0 : this.restartBackoff.next(); this.running && !this.stream; wait = this.restartBackoff.next()) {
      await sleep(wait);
      if (!this.running) return;
      try {
        await this.consume();
      } catch (error) {
        if (isFatalConsumerError(error)) return this.fail(error as Error);
        this.options.log.warn({ err: (error as Error).message, type: kafkaErrorType(error) }, 'consuming again failed; retrying');
      }
    }
  }

  private fail(error: Error): void {
    if (!this.running) return;
    this.running = false;
    this.options.onFatal(error);
  }

  private whenIdle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private assigned(topic: string, partition: number): boolean {
    if (!this.options.assignedOnly) return true;
    return this.options.consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) ?? false;
  }

  /**
   * After a join (joinKind): the first drops nothing of note; a rebalance drops every partition's queued
   * records and replaces the stream by one reading each partition from the group's committed offset (the old
   * stream's late records ignored). Only then is a refused unit's generation sure to be older than every
   * record handed out since.
   */
  private joined(joined: Membership): void {
    const kind = joinKind(this.membership, joined);
    this.membership = joined;
    if (kind === 'repeat') return;
    if (kind === 'first') return this.dropRevoked();
    this.dropRevoked(() => true);
    void this.consumeAgain();
  }

  /** Drops the queued records of the partitions `revoked` picks (by default those no longer assigned). */
  private dropRevoked(revoked = (queue: PartitionQueue) => !this.assigned(queue.topic, queue.partition)): void {
    for (const [at, queue] of this.queues) {
      if (!revoked(queue)) continue;
      queue.records = [];
      queue.next = undefined; // if it comes back, from its committed offset
      queue.settledTo = undefined;
      queue.caughtUpTo = undefined;
      queue.epoch++;
      if (queue.inFlight === 0) this.queues.delete(at);
    }
    this.flowControl();
  }

  private setPaused(topics: { topic: string; partitions?: number[] }[], paused: boolean): void {
    for (const { topic, partitions } of topics) {
      if (!partitions) {
        if (paused) this.pausedTopics.add(topic);
        else this.pausedTopics.delete(topic);
      }
      const queues = partitions ? partitions.map((p) => this.queueOf(topic, p)) : [...this.queues.values()].filter((q) => q.topic === topic);
      for (const queue of queues) queue.paused = paused;
    }
    this.flowControl();
  }

  private queueOf(topic: string, partition: number): PartitionQueue {
    const at = key(topic, partition);
    let queue = this.queues.get(at);
    if (!queue) this.queues.set(at, (queue = { topic, partition, records: [], leaderEpoch: -1, paused: this.pausedTopics.has(topic), busy: false, inFlight: 0, rewound: false, epoch: 0 }));
    return queue;
  }

  private take(fetched: Fetched): void {
    if (!this.running || !this.assigned(fetched.topic, fetched.partition)) return; // fetched before a rebalance took it away
    const queue = this.queueOf(fetched.topic, fetched.partition);
    if (queue.next !== undefined && fetched.offset < queue.next) return; // fetched again after a restart: still queued or done
    this.push(queue, inbound(fetched), fetched.offset);
    if (fetched.leaderEpoch >= 0) queue.leaderEpoch = fetched.leaderEpoch;
    this.flowControl();
    this.schedulePump();
  }

  private push(queue: PartitionQueue, record: InboundRecord, offset: bigint): void {
    queue.records.push({ record, offset });
    queue.next = offset + 1n;
  }

  /**
   * Hands out the queued records once the stream has pushed all it has now: a fetch's records arrive one
   * 'data' event each, in one go, so a partition's records of one fetch make one batch instead of a batch
   * of the first record and another of the rest.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private flowControl(): void {
    if (!this.stream) return;
    // asked of the stream itself: the client pauses and resumes it too, around a rebalance
    const paused = this.stream.isPaused();
    const pause = !this.running || shouldPause(this.queues.values(), this.pausedTopics, this.streamTopics, paused, this.options);
    if (pause !== paused) {
      if (pause) this.stream.pause();
      else this.stream.resume();
    }
  }

  private pump(): void {
    for (const queue of [...this.queues.values()]) {
      if (this.busy >= this.concurrency || !this.running) return;
      if (!queue.busy && !queue.paused && !queue.rewound && queue.records.length > 0) this.dispatch(queue);
    }
  }

  private dispatch(queue: PartitionQueue): void {
    queue.busy = true;
    queue.inFlight++;
    this.busy++;
    this.inFlight++;
    // to the back of the line: the pump serves the partitions that waited longest first
    const at = key(queue.topic, queue.partition);
    this.queues.delete(at);
    this.queues.set(at, queue);
    const taken = queue.records.splice(0, this.options.maxBatch ?? queue.records.length);
    this.flowControl();
    const epoch = queue.epoch;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // this batch held the partition, stale or not: a partition given back meanwhile waits for it, not longer
      queue.busy = false;
      this.busy--;
      this.schedulePump();
    };
    const batch: PartitionBatch = {
      topic: queue.topic,
      partition: queue.partition,
      records: taken.map((queued) => queued.record),
      leaderEpoch: queue.leaderEpoch,
      isStale: () => queue.epoch !== epoch || !this.assigned(queue.topic, queue.partition),
      release,
    };
    void this.options
      .onBatch(batch)
      .catch((error: unknown) => {
        this.options.log.warn({ err: (error as Error)?.message, topic: batch.topic, partition: batch.partition }, 'batch failed; its records come again');
        return undefined;
      })
      .then((doneBefore) => {
        // What the batch did not resolve comes again, unless the partition went elsewhere or the stream stops.
        if (this.running && !batch.isStale()) {
          const rest = taken.filter((queued) => doneBefore === undefined || queued.offset >= doneBefore);
          if (rest.length > 0) {
            queue.records = mergeByOffset(rest, queue.records);
            if (queue.inFlight > 1) queue.rewound = true;
          } else if (doneBefore !== undefined && (queue.settledTo === undefined || doneBefore > queue.settledTo)) queue.settledTo = doneBefore;
        }
        release();
        if (--queue.inFlight === 0) queue.rewound = false;
        if (!this.assigned(queue.topic, queue.partition) && queue.records.length === 0 && queue.inFlight === 0) this.queues.delete(at);
        if (--this.inFlight === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
        this.flowControl();
        // a batch that resolved nothing and is not held would come straight back: give the loop a turn first
        this.schedulePump();
      });
  }
}
