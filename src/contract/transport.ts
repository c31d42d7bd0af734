// The project's own transport vocabulary: what the pipeline, the client library and the tools read from
// and write to Kafka, named without naming a Kafka client. src/adapters/kafka maps it onto the client (the
// only folder that imports it), so a client swap touches that one folder.

/** A header as a record carries it: bytes or text; a header set twice keeps every value. */
export type HeaderValue = Buffer | string;
export interface RecordHeaders {
  [name: string]: HeaderValue | HeaderValue[] | undefined;
}

/** One record as consumed. */
export interface InboundRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeaders;
  /** The record's offset (a 64-bit number, as text). */
  offset: string;
  /** The record's timestamp (ms since the epoch, as text). */
  timestamp: string;
}

/** Where a record was read. */
export interface RecordPosition {
  topic: string;
  partition: number;
  offset: string;
}

/** A message ready for the producer: the reply, an event, an NP request or a dead letter. */
export interface Outbound {
  topic: string;
  partition?: number;
  /**
   * Without `partition`: the partition of this number modulo the topic's count, instead of the key's hash.
   * Replies use their command's partition, so the replies of one fetched batch make one produce request
   * instead of one per reply partition (requesters match replies by X-Correlation-Id, not by partition).
   */
  preferredPartition?: number;
  key: Buffer | string | null;
  value: Buffer | null;
  headers: Record<string, string | Buffer>;
}

const byteLength = (value: string | Buffer): number => (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value));

/** Bytes a message takes on the wire, near enough to keep a send below the broker's batch limit. */
export function outboundBytes(message: Outbound): number {
  let bytes = 64 + (message.key === null ? 0 : byteLength(message.key)) + (message.value?.length ?? 0);
  for (const name in message.headers) bytes += Buffer.byteLength(name) + byteLength(message.headers[name]);
  return bytes;
}

/** A message Kafka will never take, with why; everything else the sender was given was acknowledged. */
export interface Refused<T> {
  message: T;
  reason: string;
}

export interface OutboundSender {
  /**
   * Resolves once Kafka acknowledged every message (acks = all) except those it refuses for good, which
   * are returned with the reason; per-partition order is kept. Rejects on a retriable failure.
   */
  send(messages: Outbound[]): Promise<Refused<Outbound>[]>;
}

/**
 * Partition counts of topics, read from the cluster and kept for a while (topics rarely grow). `fresh`
 * accepts only a recent reading. Throws TopicRefusedError for a topic that cannot be written.
 */
export type PartitionCount = (topic: string, fresh?: boolean) => Promise<number>;

/** Thrown by a topic lookup when the topic cannot be written at all (it does not exist, may not be written, is no legal name). */
export class TopicRefusedError extends Error {
  constructor(
    readonly topic: string,
    readonly type: string,
  ) {
    super(`${type}: topic ${topic} cannot be written`);
    this.name = 'TopicRefusedError';
  }
}

/** A message Kafka acknowledged, as reported to whoever counts them (the metrics). */
export interface SentMessage {
  topic: string;
  headers?: RecordHeaders;
}

export type SentListener = (messages: readonly SentMessage[]) => void;

/** An output transaction's end, as reported to whoever counts them: committed, or aborted (then its units are sent again). */
export type TransactionListener = (outcome: 'committed' | 'aborted', durationMs: number) => void;

/** A consumer group's lag on one partition: end offset minus the group's committed offset. */
export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

/** A consumer's group membership as its events tell it (joined, assignment, a crash it was not restarted from). */
export interface ConsumerState {
  joined: boolean;
  /** Assigned partitions by topic, as of the last join. */
  assignment: Record<string, number[]>;
  memberId?: string;
  /** The error of a crash the consumer was not restarted from. */
  fatalError?: string;
  lastEvent: string;
}

export interface ConsumerMembership {
  readonly state: Readonly<ConsumerState>;
  readonly assignedPartitions: number;
}

/** Offsets by topic and partition (the next offset to read). */
export interface TopicPartitionOffsets {
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/** One fetched batch of one topic-partition. */
export interface RecordBatch {
  topic: string;
  partition: number;
  messages: InboundRecord[];
}

/** What the batch loop may do while it works on a batch. */
export interface BatchContext {
  batch: RecordBatch;
  /** Marks the batch processed up to this offset (committed by the next commit). */
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  /** False once the consumer stops. */
  isRunning(): boolean;
  /** True once the batch's partition went to another member (a rebalance). */
  isStale(): boolean;
  uncommittedOffsets(): TopicPartitionOffsets;
  commitOffsetsIfNecessary(offsets?: TopicPartitionOffsets): Promise<void>;
  /** The group generation the batch was handed out in: offsets committed in an output transaction name it. */
  readonly generation: GroupGeneration;
  /** Marks the batch processed up to this offset and that offset committed (by an output transaction). */
  resolveCommitted(offset: string): void;
  /**
   * Every record of the batch is in hand (exactly once: given to the output door): the partition's next batch
   * may begin while this one's transaction commits. What this batch then does not resolve comes again, in order.
   */
  release(): void;
}

/**
 * A consumer group member's generation as the group coordinator knows it. An output transaction commits its
 * offsets only for it (KIP-447): a member whose partitions went elsewhere meanwhile (a zombie) has an old
 * generation, its offset commit is refused and its transaction aborted, so nothing it sent becomes visible.
 */
export interface GroupGeneration {
  readonly groupId: string;
  readonly memberId: string;
  readonly generationId: number;
}

/** What goes out in an output transaction: messages, and the records they answer (none for a scheduler's events). */
export interface OutputUnit {
  messages: Outbound[];
  /** The records answered: `first` to `offset`, of one partition, handed out in `generation`. */
  offsets?: { generation: GroupGeneration; topic: string; partition: number; first: string; offset: string };
  /** The messages sent instead of those Kafka refuses for good (their dead letters); they go in the same transaction. */
  replaceRefused(refused: Refused<Outbound>[]): Outbound[];
}

/**
 * The exactly-once door for outputs: every unit given is written with its offsets in a Kafka transaction
 * (units given within a commit interval share one). A read_committed reader sees a unit's messages once, when
 * the call resolves; when it rejects, none of them (the transaction was aborted) and its offsets are not
 * committed, nor are those of any later unit of its partition until its records are handed out again.
 */
export interface TransactionalOutputs {
  send(unit: OutputUnit): Promise<void>;
  /**
   * Announces a unit in preparation (a slice being processed): the open transaction waits for it, up to the
   * commit interval, rather than committing without it. The returned function says it was sent or given up.
   */
  preparing(): () => void;
  close(): Promise<void>;
}

/** The consumer a batch loop runs on: a member of a consumer group, fed batch by batch. */
export interface BatchConsumer {
  run(options: { autoCommit: boolean; eachBatchAutoResolve: boolean; partitionsConsumedConcurrently: number; eachBatch: (context: BatchContext) => Promise<void> }): Promise<void>;
  /** Stops fetching the topics (all their partitions, or those named) until resumed. */
  pause(topics: { topic: string; partitions?: number[] }[]): void;
  resume(topics: { topic: string; partitions?: number[] }[]): void;
  disconnect(): Promise<void>;
}
