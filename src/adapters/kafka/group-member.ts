import type { Consumer, ConsumerGroupJoinPayload } from '@platformatic/kafka';
import type { Logger } from '../../contract/log';
import type { BatchContext, OutputUnit, RecordBatch, TopicPartitionOffsets } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { ConsumerStateTracker } from './consumer-state';
import { watchInstanceFenced } from './fenced-instance';
import { createGroupConsumer } from './group-consumer';
import { CAUGHT_UP_COMMIT_MS, PartitionStream, type PartitionBatch } from './partition-stream';
import { batchRefusalIn, refusalRecord, type BatchRefused } from './refused-batch';
import { locateRefusedBatch, type LocatorCost } from './refused-batch-locator';

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

/** Records waiting in the member (every partition not held) before it stops fetching. */
const QUEUE_HIGH_WATER = 2_000;
/** Records a held partition may queue before the member stops fetching altogether (the hold then costs every partition). */
const HELD_QUEUE_LIMIT = 5_000;
/** The wait before consuming again after the stream failed, doubling up to the most. */
const RESTART_BACKOFF = { initialMs: 500, maxMs: 10_000, jitter: 'none' } as const;

const sameTopics = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((topic) => b.includes(topic));

/**
 * How far past a partition's last delivered record a refused batch is looked for: the stream may have
 * fetched (and held undelivered) this much more before the failed fetch.
 */
const REFUSAL_SEARCH_BYTES = 16 * 1024 * 1024;

interface Position {
  topic: string;
  partition: number;
  /** The next offset to commit (the last resolved + 1), and the last committed. */
  resolved?: bigint;
  committed?: bigint;
  leaderEpoch: number;
}

/**
 * A member of a consumer group fed batch by batch (the transport's BatchConsumer), on the per-partition
 * stream (partition-stream.ts: batches per partition, holds, flow control, consuming again after a
 * failure from the committed offsets, duplicates dropped). On top of it the member:
 * - hands each partition's batch to `eachBatch` with the transport's BatchContext;
 * - commits what the batch loop resolved, itself (the client's commit with the record's leader epoch), so
 *   commits do not depend on the stream that delivered the records, and before each new stream;
 * - skips a compressed batch the bounded codecs refused (bounded-codecs.ts): its fetch failed whole, so the
 *   batch is located (refused-batch-locator.ts), the records before it are queued, then one placeholder at
 *   its last offset that the worker dead-letters; once that is committed, the new stream starts after it.
 */
export class GroupMember {
  readonly membership: ConsumerStateTracker;
  readonly joined: Promise<void>;
  /** The client's consumer: an output transaction names its group (transactional-output.ts). */
  readonly consumer: Consumer<Buffer, Buffer, Buffer, Buffer>;
  private readonly stream: PartitionStream;
  private topics: string[] = [];
  private eachBatch?: (context: BatchContext) => Promise<void>;
  private closing = false;
  private stoppedForGood = false;
  private readonly positions = new Map<string, Position>();
  /**
   * The membership of the last join: what a batch handed out now belongs to. Not the client's generationId,
   * which takes the next generation from the JoinGroup answer while the stream still hands out what it fetched
   * under the last assignment until SyncGroup completes the join: offsets committed for that generation are
   * accepted, and the partition, read again from the committed offset after the join, answered twice
   * (test/integration/rebalance-window.test.ts).
   */
  private joinedAs?: { memberId: string; generationId: number };
  private readonly fatalListeners: ((error: Error) => void)[] = [];
  private readonly unwatchFenced: () => void;
  private caughtUpTimer?: NodeJS.Timeout;
  /** Exactly once: every offset goes out in an output transaction, none in a plain OffsetCommit (commitInTransactions). */
  private commitInTransaction?: (offsets: NonNullable<OutputUnit['offsets']>) => Promise<void>;

  constructor(
    connection: KafkaConnection,
    settings: GroupMemberSettings,
    private readonly log: Logger = connection.log,
  ) {
    const { groupInstanceId } = settings;
    // the consumer's and each stream's (a stream joins the group with them)
    const group = { sessionTimeout: settings.sessionTimeoutMs, heartbeatInterval: settings.heartbeatIntervalMs, ...(groupInstanceId ? { groupInstanceId } : {}) };
    this.consumer = createGroupConsumer(connection, settings.groupId, { suffix: 'consumer', metadataMaxAge: settings.metadataMaxAgeMs, ...group });
    this.stream = new PartitionStream({
      consumer: this.consumer,
      log,
      consumeOptions: () => ({
        topics: this.topics,
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        maxBytesPerPartition: settings.maxBytesPerPartition,
        maxWaitTime: settings.fetchMaxWaitMs,
        ...group,
      }),
      onBatch: (batch) => this.handOut(batch),
      highWater: QUEUE_HIGH_WATER,
      heldLimit: HELD_QUEUE_LIMIT,
      restartBackoff: RESTART_BACKOFF,
      assignedOnly: true,
      // the set changed while this stream started
      onStarted: () => void (sameTopics(this.stream.topics, this.topics) ? undefined : this.stream.consumeAgain()),
      onFailed: (error) => this.failed(error),
      beforeConsumingAgain: async () => {
        if (this.commitInTransaction) return; // every offset was committed with its outputs
        await this.commitOffsets(this.uncommittedOffsets()).catch((commitError: unknown) =>
          this.log.warn({ err: (commitError as Error).message }, 'offset commit before consuming again failed; those records come again'),
        );
      },
      onFatal: (error) => this.fail(error),
    });
    // a second worker took this one's static id: this one stops (not rejoins, which would fence that one)
    this.unwatchFenced = groupInstanceId ? watchInstanceFenced(this.consumer, groupInstanceId, (error) => this.fail(error)) : () => undefined;
    this.membership = new ConsumerStateTracker(this.consumer);
    this.joined = new Promise((resolve) => this.consumer.once('consumer:group:join', () => resolve()));
    this.consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
      this.log.info({ memberId: payload.memberId, generationId: payload.generationId, assignments: payload.assignments }, 'joined the group');
      // A new generation reads every partition again from the group's committed offsets (partition-stream.ts,
      // joinKind): what this member resolved before is no longer what it may commit. Committed now, with the
      // new generation, it could move a partition's offset back behind what another member committed meanwhile.
      if (payload.generationId !== this.joinedAs?.generationId) this.positions.clear();
      this.joinedAs = { memberId: payload.memberId, generationId: payload.generationId ?? this.consumer.generationId };
    });
  }

  /**
   * The topics to consume. While running, a changed set is taken up at once: the stream is replaced by one
   * on the new set (the client rejoins the group for it), from the committed offsets, as after a failure.
   */
  async subscribe(topics: string[]): Promise<void> {
    this.topics = [...topics];
    if (!this.stream.isRunning || sameTopics(this.stream.topics, this.topics)) return;
    this.log.info({ topics: this.topics }, 'consuming a changed set of topics');
    await this.stream.consumeAgain();
  }

  /**
   * Exactly once: offsets are committed only in output transactions, with the generation of the last join
   * (also those of positions read past transaction markers). A plain OffsetCommit carries the client's
   * generation when it is sent, and the client sends it again under the next generation after a rebalance
   * refused it: a position taken before a transaction committed further then moves the partition's offset
   * back, and the records after it are answered twice (rebalance-window.test.ts).
   */
  commitInTransactions(send: (offsets: NonNullable<OutputUnit['offsets']>) => Promise<void>): void {
    this.commitInTransaction = send;
  }

  onFatal(listener: (error: Error) => void): void {
    this.fatalListeners.push(listener);
  }

  async run(options: { partitionsConsumedConcurrently: number; eachBatch: (context: BatchContext) => Promise<void> }): Promise<void> {
    this.eachBatch = options.eachBatch;
    this.caughtUpTimer = setInterval(() => void this.commitCaughtUp(), CAUGHT_UP_COMMIT_MS).unref();
    await this.stream.start(options.partitionsConsumedConcurrently);
  }

  /** Commits the position of partitions read to their end past transaction markers (partition-stream.ts caughtUp). */
  private async commitCaughtUp(): Promise<void> {
    const caughtUp = this.stream.caughtUp();
    if (caughtUp.length === 0) return;
    const send = this.commitInTransaction;
    if (send) {
      const joinedAs = this.joinedAs;
      if (!joinedAs) return;
      await Promise.all(
        caughtUp.map(async ({ topic, partition, offset }) => {
          const position = this.positionOf(topic, partition);
          const before = String(offset - 1n); // the unit names the last record it answers: the commit is the offset after it
          try {
            await send({ generation: { groupId: this.consumer.groupId, ...joinedAs }, topic, partition, first: before, offset: before });
          } catch (error) {
            this.log.warn({ err: (error as Error).message, topic, partition }, 'commit past transaction markers failed; the next commit covers it');
            return;
          }
          if (this.joinedAs !== joinedAs || this.positions.get(`${topic}|${partition}`) !== position) return;
          if (position.resolved === undefined || offset > position.resolved) position.resolved = offset;
          if (position.committed === undefined || offset > position.committed) position.committed = offset;
        }),
      );
      return;
    }
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const { topic, partition, offset } of caughtUp) {
      const position = this.positionOf(topic, partition);
      if (position.resolved === undefined || offset > position.resolved) position.resolved = offset;
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset: offset.toString() }]);
    }
    await this.commitOffsets({ topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) }).catch((error: unknown) =>
      this.log.warn({ err: (error as Error).message }, 'commit past transaction markers failed; the next commit covers it'),
    );
  }

  /** Stops handing out the partitions' records (all of a topic's, or those named) until resumed. */
  pause(topics: { topic: string; partitions?: number[] }[]): void {
    this.stream.pause(topics);
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    this.stream.resume(topics);
  }

  async disconnect(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.caughtUpTimer);
    this.unwatchFenced();
    await this.stream.stop();
  }

  /** The stream failed: skip a refused batch if that was why; true when it was skipped (consume again at once). */
  private async failed(error: Error): Promise<boolean> {
    const refusal = batchRefusalIn(error);
    if (refusal) return this.skipRefused(refusal);
    this.membership.restarting();
    return false;
  }

  /**
   * Queues the records before the refused batch and its placeholder, and waits until the worker resolved
   * the placeholder: the next stream starts after the batch only once its offset is committed. False when
   * the batch could not be located (the stream then starts from the committed offsets, and fails again).
   */
  private async skipRefused(refusal: BatchRefused): Promise<boolean> {
    const assigned = (this.consumer.assignments ?? []).flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
    // where a partition nothing was delivered from since this member started would have been fetched from
    const committed = await this.consumer.listCommittedOffsets({ topics: this.consumer.assignments ?? [] }).catch(() => new Map<string, bigint[]>());
    const committedOf = (topic: string, partition: number): bigint => {
      const offset = committed.get(topic)?.[partition] ?? -1n;
      return offset < 0n ? 0n : offset;
    };
    const candidates = assigned.map(({ topic, partition }) => ({ topic, partition, offset: this.stream.nextOffset(topic, partition) ?? committedOf(topic, partition) }));
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
    this.stream.inject(topic, partition, [...located.before, refusalRecord({ first, last, detail: refusal.detail })]);
    while (this.stream.isRunning && this.assigned(topic, partition) && (this.positionOf(topic, partition).resolved ?? -1n) <= last) await new Promise((resolve) => setTimeout(resolve, 20));
    return true;
  }

  private fail(error: Error): void {
    if (this.closing || this.stoppedForGood) return;
    this.stoppedForGood = true;
    this.stream.halt();
    this.membership.failed(error);
    this.log.error({ err: error.message }, 'the consumer stopped for good');
    for (const listener of this.fatalListeners) listener(error);
  }

  private assigned(topic: string, partition: number): boolean {
    return this.consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) ?? false;
  }

  private positionOf(topic: string, partition: number): Position {
    const at = `${topic}|${partition}`;
    let position = this.positions.get(at);
    if (!position) this.positions.set(at, (position = { topic, partition, leaderEpoch: -1 }));
    return position;
  }

  /** Hands a partition's batch to the batch loop; tells where what it did not resolve starts. */
  private async handOut(partitionBatch: PartitionBatch): Promise<bigint | undefined> {
    const { topic, partition, records, leaderEpoch } = partitionBatch;
    const position = this.positionOf(topic, partition);
    if (leaderEpoch >= 0) position.leaderEpoch = leaderEpoch;
    const batch: RecordBatch = { topic, partition, messages: records };
    const joinedAs = this.joinedAs ?? { memberId: this.consumer.memberId ?? '', generationId: this.consumer.generationId };
    // a batch of an older generation resolves nothing: the partition is read again from the committed offsets
    const current = () => this.joinedAs?.generationId === joinedAs.generationId && this.positions.get(`${topic}|${partition}`) === position;
    const context: BatchContext = {
      batch,
      resolveOffset: (offset) => {
        if (!current()) return;
        const next = BigInt(offset) + 1n;
        if (position.resolved === undefined || next > position.resolved) position.resolved = next;
      },
      heartbeat: async () => undefined, // the client heartbeats on its own timer
      isRunning: () => this.stream.isRunning,
      isStale: () => partitionBatch.isStale(),
      release: () => partitionBatch.release(),
      uncommittedOffsets: () => this.uncommittedOffsets(),
      commitOffsetsIfNecessary: (offsets) => this.commitOffsets(offsets ?? this.uncommittedOffsets()),
      generation: { groupId: this.consumer.groupId, ...joinedAs },
      resolveCommitted: (offset) => {
        if (!current()) return;
        context.resolveOffset(offset);
        const next = BigInt(offset) + 1n;
        if (position.committed === undefined || next > position.committed) position.committed = next;
      },
    };
    await this.eachBatch?.(context).catch((error: unknown) => this.log.warn({ err: (error as Error)?.message, topic, partition }, 'batch failed; its records come again'));
    return position.resolved;
  }

  private uncommittedOffsets(): TopicPartitionOffsets {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const { topic, partition, resolved, committed } of this.positions.values()) {
      if (resolved === undefined || resolved === committed || !this.assigned(topic, partition)) continue;
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset: resolved.toString() }]);
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
