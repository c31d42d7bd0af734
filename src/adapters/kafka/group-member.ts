import { Consumer, FetchIsolationLevels, type ConsumerGroupJoinPayload, type Message, type MessagesStream } from '@platformatic/kafka';
import type { Logger } from '../../contract/log';
import type { BatchContext, InboundRecord, RecordBatch, TopicPartitionOffsets } from '../../contract/transport';
import { clientOptions, type KafkaConnection } from './connection';
import { ConsumerStateTracker } from './consumer-state';
import { watchInstanceFenced } from './fenced-instance';
import { isFatalConsumerError } from './group-consumer';
import { inbound } from './inbound-record';
import { batchRefusalIn, refusalRecord, type BatchRefused } from './refused-batch';
import { locateRefusedBatch, type LocatorCost } from './refused-batch-locator';
import { kafkaErrorType } from './send-refusal';

/** The group member's settings (the service's, from its configuration). */
export interface GroupMemberSettings {
  groupId: string;
  /** The most a fetch takes from one partition (beyond its first record batch, which always comes whole). */
  maxBytesPerPartition: number;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  metadataMaxAgeMs: number;
  /** How long a fetch waits for records. */
  fetchMaxWaitMs: number;
  /** A static member's id (KIP-345): a restarted member takes its partitions back without a rebalance. */
  groupInstanceId?: string;
}

type Record_ = Message<Buffer, Buffer, Buffer, Buffer>;
type Stream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;

/** Records waiting in the member (every partition not held) before it stops fetching. */
const QUEUE_HIGH_WATER = 2_000;
/** Records a held partition may queue before the member stops fetching altogether (the hold then costs every partition). */
const HELD_QUEUE_LIMIT = 5_000;
/** The wait before consuming again after the stream failed, doubling up to the most. */
const RESTART_DELAY_MS = { first: 500, most: 10_000 };

const tp = (topic: string, partition: number) => `${topic}|${partition}`;

const sameTopics = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((topic) => b.includes(topic));

/** A record waiting in its partition's queue. */
interface Queued {
  record: InboundRecord;
  offset: bigint;
}

/**
 * How far past a partition's last delivered record a refused batch is looked for: the stream may have
 * fetched (and held undelivered) this much more before the failed fetch.
 */
const REFUSAL_SEARCH_BYTES = 16 * 1024 * 1024;

interface PartitionQueue {
  topic: string;
  partition: number;
  records: Queued[];
  /** The offset after the last record queued: a record below it, fetched again after a restart, is a duplicate. */
  next?: bigint;
  /** Paused by the batch loop (a held record): its records stay queued from the first one not resolved. */
  paused: boolean;
  busy: boolean;
  /** Bumped when the partition is revoked: a batch of an older epoch is stale. */
  epoch: number;
}

interface Position {
  /** The next offset to commit (the last resolved + 1), and the last committed. */
  resolved?: bigint;
  committed?: bigint;
  leaderEpoch: number;
}

/**
 * A member of a consumer group fed batch by batch (the transport's BatchConsumer), on @platformatic/kafka,
 * whose consumer is one stream of records for every assigned partition. The member:
 * - queues the records per partition and hands each partition's queued records to `eachBatch` as one
 *   batch, one batch in flight per partition and at most `partitionsConsumedConcurrently` at once;
 * - holds a partition without the client's help (it has no per-partition pause): a paused partition's
 *   records stay queued from the first one not resolved, as a consumer that seeks back to its last resolved
 *   offset would fetch them, while the other partitions flow; the stream pauses while too many records
 *   wait (QUEUE_HIGH_WATER, or HELD_QUEUE_LIMIT behind a hold);
 * - commits what the batch loop resolved, itself (the client's commit with the record's leader epoch), so
 *   commits do not depend on the stream that delivered the records;
 * - consumes again after the stream failed (a broker lost for longer than the client's retries): a new
 *   stream starts from the committed offsets — as kafkajs restarted its consumer after a crash — and the
 *   records it fetches again that are still queued here are dropped as duplicates;
 * - skips a compressed batch the bounded codecs refused (bounded-codecs.ts): its fetch failed whole, so the
 *   batch is located (refused-batch-locator.ts), the records before it are queued, then one placeholder at
 *   its last offset that the worker dead-letters; once that is committed, the new stream starts after it.
 */
export class GroupMember {
  readonly membership: ConsumerStateTracker;
  readonly joined: Promise<void>;
  /** The client's consumer: an output transaction names its group (transactional-output.ts). */
  readonly consumer: Consumer<Buffer, Buffer, Buffer, Buffer>;
  private topics: string[] = [];
  /** The topics the current stream consumes. */
  private streamTopics: string[] = [];
  private readonly pausedTopics = new Set<string>();
  private stream?: Stream;
  private eachBatch?: (context: BatchContext) => Promise<void>;
  private concurrency = 1;
  private running = false;
  private closing = false;
  private busy = 0;
  private idleWaiters: (() => void)[] = [];
  private pumpScheduled = false;
  private readonly queues = new Map<string, PartitionQueue>();
  private readonly positions = new Map<string, Position>();
  private readonly fatalListeners: ((error: Error) => void)[] = [];
  private restartDelayMs = RESTART_DELAY_MS.first;
  private readonly unwatchFenced: () => void;

  constructor(
    connection: KafkaConnection,
    private readonly settings: GroupMemberSettings,
    private readonly log: Logger = connection.log,
  ) {
    this.consumer = new Consumer({
      ...clientOptions(connection, 'consumer'),
      groupId: settings.groupId,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      metadataMaxAge: settings.metadataMaxAgeMs,
      autocommit: false,
      // commands a partner wrote in a transaction count once it commits, never if it aborts
      isolationLevel: FetchIsolationLevels.READ_COMMITTED,
      ...(settings.groupInstanceId ? { groupInstanceId: settings.groupInstanceId } : {}),
    });
    // a rejoin that failed is emitted as 'error': unheard, it would throw out of the event loop
    this.consumer.on('error', (error: Error) => this.log.warn({ err: error.message, type: kafkaErrorType(error) }, 'the consumer could not rejoin its group'));
    // a second worker took this one's static id: this one stops (not rejoins, which would fence that one)
    const { groupInstanceId } = settings;
    this.unwatchFenced = groupInstanceId ? watchInstanceFenced(this.consumer, groupInstanceId, (error) => this.fail(error)) : () => undefined;
    this.membership = new ConsumerStateTracker(this.consumer);
    this.joined = new Promise((resolve) => this.consumer.once('consumer:group:join', () => resolve()));
    this.consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
      this.log.info({ memberId: payload.memberId, generationId: payload.generationId, assignments: payload.assignments }, 'joined the group');
      this.dropRevoked();
    });
  }

  /**
   * The topics to consume. While running, a changed set is taken up at once: the stream is replaced by one
   * on the new set (the client rejoins the group for it), from the committed offsets, as after a failure.
   */
  async subscribe(topics: string[]): Promise<void> {
    this.topics = [...topics];
    await this.followTopics();
  }

  private async followTopics(): Promise<void> {
    const current = this.stream;
    // not consuming yet, or a restart under way: its new stream takes the set it finds
    if (!this.running || !current || sameTopics(this.streamTopics, this.topics)) return;
    this.stream = undefined;
    await current.close().catch(() => undefined);
    this.log.info({ topics: this.topics }, 'consuming a changed set of topics');
    await this.consumeAgain();
  }

  onFatal(listener: (error: Error) => void): void {
    this.fatalListeners.push(listener);
  }

  async run(options: { partitionsConsumedConcurrently: number; eachBatch: (context: BatchContext) => Promise<void> }): Promise<void> {
    this.eachBatch = options.eachBatch;
    this.concurrency = Math.max(1, options.partitionsConsumedConcurrently);
    this.running = true;
    await this.consume();
  }

  /** Stops handing out the partitions' records (all of a topic's, or those named) until resumed. */
  pause(topics: { topic: string; partitions?: number[] }[]): void {
    for (const { topic, partitions } of topics) {
      if (!partitions) this.pausedTopics.add(topic);
      for (const queue of this.queuesOf(topic, partitions)) queue.paused = true;
    }
    this.flowControl();
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    for (const { topic, partitions } of topics) {
      if (!partitions) this.pausedTopics.delete(topic);
      for (const queue of this.queuesOf(topic, partitions)) queue.paused = false;
    }
    this.flowControl();
    this.pump();
  }

  async disconnect(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.running = false;
    this.unwatchFenced();
    await this.whenIdle();
    await this.stream?.close().catch(() => undefined);
    await this.consumer.close(true).catch((error: unknown) => this.log.warn({ err: (error as Error).message }, 'consumer close failed'));
  }

  private async consume(): Promise<void> {
    const topics = this.topics;
    const stream = await this.consumer.consume({
      topics,
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      maxBytesPerPartition: this.settings.maxBytesPerPartition,
      maxWaitTime: this.settings.fetchMaxWaitMs,
      sessionTimeout: this.settings.sessionTimeoutMs,
      heartbeatInterval: this.settings.heartbeatIntervalMs,
      ...(this.settings.groupInstanceId ? { groupInstanceId: this.settings.groupInstanceId } : {}),
    });
    if (!this.running) {
      await stream.close().catch(() => undefined);
      return;
    }
    this.stream = stream;
    this.streamTopics = topics;
    this.restartDelayMs = RESTART_DELAY_MS.first;
    stream.on('data', (record: Record_) => this.enqueue(record));
    stream.on('error', (error: Error) => void this.restartAfter(stream, error));
    this.flowControl();
    if (!sameTopics(topics, this.topics)) void this.followTopics(); // the set changed while this stream started
  }

  /** The stream failed: skip a refused batch if that was why, commit what was resolved, and consume again. */
  private async restartAfter(failed: Stream, error: Error): Promise<void> {
    if (this.stream !== failed || !this.running) return;
    this.stream = undefined;
    await failed.close().catch(() => undefined);
    const type = kafkaErrorType(error);
    if (isFatalConsumerError(error)) return this.fail(error);
    const refusal = batchRefusalIn(error);
    if (refusal) {
      if (await this.skipRefused(refusal)) this.restartDelayMs = 0;
    } else {
      this.membership.restarting();
      this.log.warn({ err: error.message, type }, 'the consumer stream failed; consuming again from the committed offsets');
    }
    await this.consumeAgain();
  }

  /** Commits what was resolved and starts a new stream, retrying with a growing pause until one runs. */
  private async consumeAgain(): Promise<void> {
    await this.commitOffsets(this.uncommittedOffsets()).catch((commitError: unknown) =>
      this.log.warn({ err: (commitError as Error).message }, 'offset commit before consuming again failed; those records come again'),
    );
    while (this.running && !this.stream) {
      await new Promise((resolve) => setTimeout(resolve, this.restartDelayMs));
      // no wait after a skipped refused batch, then the usual doubling (0 doubled would retry without a pause)
      this.restartDelayMs = Math.min(Math.max(this.restartDelayMs * 2, RESTART_DELAY_MS.first), RESTART_DELAY_MS.most);
      if (!this.running) return;
      try {
        await this.consume();
      } catch (consumeError) {
        if (isFatalConsumerError(consumeError)) return this.fail(consumeError as Error);
        this.log.warn({ err: (consumeError as Error).message, type: kafkaErrorType(consumeError) }, 'consuming again failed; retrying');
      }
    }
  }

  /**
   * Queues the records before the refused batch and its placeholder, and waits until the worker resolved
   * the placeholder: the next stream starts after the batch only once its offset is committed. False when
   * the batch could not be located (the stream then starts from the committed offsets, and fails again).
   */
  private async skipRefused(refusal: BatchRefused): Promise<boolean> {
    const assigned = [...this.assignedPartitions()];
    // where a partition nothing was delivered from since this member started would have been fetched from
    const committed = await this.consumer.listCommittedOffsets({ topics: this.consumer.assignments ?? [] }).catch(() => new Map<string, bigint[]>());
    const committedOf = (topic: string, partition: number): bigint => {
      const offset = committed.get(topic)?.[partition] ?? -1n;
      return offset < 0n ? 0n : offset;
    };
    const candidates = assigned.map(({ topic, partition }) => ({ topic, partition, offset: this.queues.get(tp(topic, partition))?.next ?? committedOf(topic, partition) }));
    const cost: LocatorCost = { probes: 0, ms: 0 };
    const located = await locateRefusedBatch(this.consumer, candidates, refusal, { maxBytesPerPartition: REFUSAL_SEARCH_BYTES, cost }).catch((locateError: unknown) => {
      this.log.error({ err: (locateError as Error).message }, 'could not locate the refused compressed batch');
      return undefined;
    });
    if (!located) return false;
    const { topic, partition, first, last } = located;
    this.log.warn(
      { topic, partition, first: String(first), last: String(last), detail: refusal.detail, probes: cost.probes, ms: cost.ms },
      'compressed batch refused; it is dead-lettered and skipped',
    );
    const queue = this.queueOf(topic, partition);
    const placeholder = refusalRecord({ first, last, detail: refusal.detail });
    for (const record of [...located.before, placeholder]) this.push(queue, record, -1);
    this.pump();
    const position = this.positionOf(topic, partition);
    while (this.running && this.assigned(topic, partition) && (position.resolved ?? -1n) <= last) await new Promise((resolve) => setTimeout(resolve, 20));
    return true;
  }

  private *assignedPartitions(): Iterable<{ topic: string; partition: number }> {
    for (const { topic, partitions } of this.consumer.assignments ?? []) for (const partition of partitions) yield { topic, partition };
  }

  /** Resolves once no batch is in flight. */
  private whenIdle(): Promise<void> {
    return this.busy === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private fail(error: Error): void {
    if (!this.running) return;
    this.running = false;
    this.membership.failed(error);
    this.log.error({ err: error.message }, 'the consumer stopped for good');
    for (const listener of this.fatalListeners) listener(error);
  }

  private assigned(topic: string, partition: number): boolean {
    return this.consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) ?? false;
  }

  /** After a join: queued records of partitions no longer assigned are dropped (their new owner fetches them). */
  private dropRevoked(): void {
    for (const [key, queue] of this.queues) {
      if (this.assigned(queue.topic, queue.partition)) continue;
      queue.records = [];
      queue.next = undefined; // if it comes back, from its committed offset
      queue.epoch++;
      this.positions.delete(key);
      if (!queue.busy) this.queues.delete(key);
    }
    this.flowControl();
  }

  private queueOf(topic: string, partition: number): PartitionQueue {
    const key = tp(topic, partition);
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { topic, partition, records: [], paused: this.pausedTopics.has(topic), busy: false, epoch: 0 }));
    return queue;
  }

  private queuesOf(topic: string, partitions?: number[]): PartitionQueue[] {
    return partitions ? partitions.map((p) => this.queueOf(topic, p)) : [...this.queues.values()].filter((q) => q.topic === topic);
  }

  private enqueue(record: Record_): void {
    if (!this.assigned(record.topic, record.partition)) return; // fetched before a rebalance took it away
    const queue = this.queueOf(record.topic, record.partition);
    if (queue.next !== undefined && record.offset < queue.next) return; // fetched again after a restart: still queued or done
    this.push(queue, inbound(record), record.leaderEpoch);
    this.flowControl();
    this.schedulePump();
  }

  /**
   * Hands out the queued records once the stream has pushed all it has now: a fetch's records arrive one
   * 'data' event each, in one go, so a partition's records of one fetch make one batch (as a consumer fed
   * batch by batch would hand them) instead of a batch of the first record and another of the rest.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private push(queue: PartitionQueue, record: InboundRecord, leaderEpoch: number): void {
    const offset = BigInt(record.offset);
    queue.records.push({ record, offset });
    queue.next = offset + 1n;
    if (leaderEpoch >= 0) this.positionOf(queue.topic, queue.partition).leaderEpoch = leaderEpoch;
  }

  private positionOf(topic: string, partition: number): Position {
    const key = tp(topic, partition);
    let position = this.positions.get(key);
    if (!position) this.positions.set(key, (position = { leaderEpoch: -1 }));
    return position;
  }

  private flowControl(): void {
    if (!this.stream) return;
    let waiting = 0;
    let heldOverflow = false;
    for (const queue of this.queues.values()) {
      if (queue.paused) heldOverflow ||= queue.records.length > HELD_QUEUE_LIMIT;
      else waiting += queue.records.length;
    }
    const everyTopicPaused = this.topics.length > 0 && this.topics.every((topic) => this.pausedTopics.has(topic));
    const pause = waiting > QUEUE_HIGH_WATER || heldOverflow || everyTopicPaused;
    // asked of the stream itself: the client pauses and resumes it too, around a rebalance
    if (pause !== this.stream.isPaused()) {
      if (pause) this.stream.pause();
      else this.stream.resume();
    }
  }

  private pump(): void {
    for (const queue of [...this.queues.values()]) {
      if (this.busy >= this.concurrency) return;
      if (!queue.busy && !queue.paused && queue.records.length > 0) this.dispatch(queue);
    }
  }

  private dispatch(queue: PartitionQueue): void {
    const eachBatch = this.eachBatch;
    if (!this.running || !eachBatch) return;
    queue.busy = true;
    this.busy++;
    // to the back of the line: the pump serves the partitions that waited longest first
    const key = tp(queue.topic, queue.partition);
    this.queues.delete(key);
    this.queues.set(key, queue);
    const taken = queue.records;
    queue.records = [];
    this.flowControl();
    const epoch = queue.epoch;
    const position = this.positionOf(queue.topic, queue.partition);
    const batch: RecordBatch = { topic: queue.topic, partition: queue.partition, messages: taken.map((queued) => queued.record) };
    const context: BatchContext = {
      batch,
      resolveOffset: (offset) => {
        const next = BigInt(offset) + 1n;
        if (position.resolved === undefined || next > position.resolved) position.resolved = next;
      },
      heartbeat: async () => undefined, // the client heartbeats on its own timer
      isRunning: () => this.running,
      isStale: () => queue.epoch !== epoch || !this.assigned(queue.topic, queue.partition),
      uncommittedOffsets: () => this.uncommittedOffsets(),
      commitOffsetsIfNecessary: (offsets) => this.commitOffsets(offsets ?? this.uncommittedOffsets()),
      generation: { groupId: this.consumer.groupId, memberId: this.consumer.memberId ?? '', generationId: this.consumer.generationId },
      resolveCommitted: (offset) => {
        context.resolveOffset(offset);
        const next = BigInt(offset) + 1n;
        if (position.committed === undefined || next > position.committed) position.committed = next;
      },
    };
    eachBatch(context)
      .catch((error: unknown) => this.log.warn({ err: (error as Error)?.message, topic: queue.topic, partition: queue.partition }, 'batch failed; its records come again'))
      .finally(() => {
        // What the batch did not resolve comes again (a held record and those behind it, or a batch cut
        // short), unless the partition went elsewhere or the member stops.
        if (this.running && queue.epoch === epoch && this.assigned(queue.topic, queue.partition)) {
          const resolved = position.resolved ?? -1n;
          const rest = taken.filter((queued) => queued.offset >= resolved);
          if (rest.length > 0) queue.records = [...rest, ...queue.records];
        }
        queue.busy = false;
        if (!this.assigned(queue.topic, queue.partition) && queue.records.length === 0) this.queues.delete(tp(queue.topic, queue.partition));
        if (--this.busy === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
        this.flowControl();
        // a batch that resolved nothing and is not held would come straight back: give the loop a turn first
        this.schedulePump();
      });
  }

  private uncommittedOffsets(): TopicPartitionOffsets {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const [key, position] of this.positions) {
      if (position.resolved === undefined || position.resolved === position.committed) continue;
      const at = key.lastIndexOf('|');
      const topic = key.slice(0, at);
      const partition = Number(key.slice(at + 1));
      if (!this.assigned(topic, partition)) continue;
      const partitions = byTopic.get(topic) ?? [];
      partitions.push({ partition, offset: position.resolved.toString() });
      byTopic.set(topic, partitions);
    }
    return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) };
  }

  private async commitOffsets(offsets: TopicPartitionOffsets): Promise<void> {
    const list = offsets.topics.flatMap(({ topic, partitions }) =>
      partitions.map(({ partition, offset }) => ({ topic, partition, offset: BigInt(offset), leaderEpoch: this.positionOf(topic, partition).leaderEpoch })),
    );
    if (list.length === 0) return;
    await this.consumer.commit({ offsets: list });
    for (const { topic, partition, offset } of list) {
      const position = this.positionOf(topic, partition);
      if (position.committed === undefined || offset > position.committed) position.committed = offset;
    }
  }
}
