import type { Logger } from 'pino';
import { RetriableError } from '../contract/errors';
import { correlationIdOf } from './envelope';
import { CommitPacing } from './commit-pacing';
import { HeldPartitions, type HeldPartition } from './held-partitions';

export type { HeldPartition } from './held-partitions';
import type { BatchConsumer, BatchContext, InboundRecord, Outbound, OutboundSender, RecordPosition, TransactionalOutputs } from '../contract/transport';

/**
 * The consume → process → produce → commit loop. Each fetched batch is handled in slices of at most
 * `sliceRecords`, one after another, each split by record key: records of one key run one after another
 * (per-number order), different keys run concurrently. Exactly once (KAFKA_DELIVERY), a slice's outputs and
 * its offset go out in one Kafka transaction (`transactions`): a read_committed reader sees them once, and a
 * slice whose transaction fails is handled again, its commands replaying their recorded outcomes. At least
 * once, a slice's outputs go out through the sender (acks=all) and only then are its offsets resolved and
 * committed: a redelivery answers again from the recorded outcomes.
 * A message Kafka refuses for good (see partitioned-sender.ts) is dead-lettered as UNDELIVERABLE instead, so
 * its record is committed like the others: one bad reply topic never holds up the records behind it.
 * A RetriableError (Redis or the registry away, a follow-up not done yet) holds the record's partition, and
 * only it: what was done before the record is sent and committed, the partition is paused, the batch returns
 * (so the consumer hands out the other partitions' records again) and the partition is resumed after a jittered backoff
 * (held-partitions.ts), fetched again from the held record, which is tried alone first: nothing behind it in its partition is begun
 * while it fails. Records of it done after the held one (in flight when it first failed) are remembered and
 * not handled twice. A held record is retried until it succeeds or the consumer stops; it is never committed unprocessed
 * nor dead-lettered (docs/reliability.md: why holding beats a bounded number of attempts).
 *
 * Commits, at least once: an offset is resolved only after its batch's messages were acknowledged, and resolved offsets
 * are committed at most every `commitIntervalMs` (commit-pacing.ts) and always before the worker leaves the group.
 */
export interface RecordOutcome {
  outbound: Outbound[];
  outcome: string;
  operation?: string;
  correlationId?: string;
  customer?: string;
  /** A refused command (UNAUTHORIZED, FORBIDDEN) and what was done with it. */
  rejection?: { reason: string; action: 'answered' | 'recorded' | 'dropped' | 'shed' };
}

export type RecordProcessor = (message: InboundRecord, position: RecordPosition) => Promise<RecordOutcome>;

export interface BatchWorkerOptions {
  consumer: BatchConsumer;
  /** Writes what a batch produced; resolves once Kafka acknowledged all of it. */
  sender: OutboundSender;
  /**
   * Exactly-once outputs: when given, each slice's outputs and its offset go out in one transaction through
   * this door instead of the sender and the consumer's commit (KAFKA_DELIVERY, docs/reliability.md).
   */
  transactions?: TransactionalOutputs;
  /** Topic name → the processor of its records (topics may join while it runs: partners' command topics). */
  processors: Pick<ReadonlyMap<string, RecordProcessor>, 'get' | 'keys'>;
  concurrency: number;
  /**
   * A fetched batch is handled in slices of at most this many records, each sent, resolved and (at the
   * commit interval) committed before the next begins: what a batch holds in memory, and how long its first
   * replies wait, stay bounded however much a fetch brought after a backlog.
   */
  sliceRecords: number;
  partitionsConsumedConcurrently: number;
  log: Logger;
  /** Called once per record processed, dead-lettered records included (for logs and metrics). */
  onOutcome?: (outcome: RecordOutcome, position: RecordPosition, durationMs: number, message: InboundRecord) => void;
  /** Where a record goes when its processor fails with anything but a RetriableError: never retried forever. */
  deadLetter: (message: InboundRecord, position: RecordPosition, error: unknown) => Outbound[];
  /** The dead letter of one output message Kafka refused for good (`reason`), produced by `record`. */
  undeliverable: (refused: Outbound, record: InboundRecord, position: RecordPosition, reason: string) => Outbound;
  retryBackoffMs?: { initial: number; max: number };
  /** Called when a partition is held after a retriable failure and when it is released (for logs and metrics). */
  onHold?: (held: HeldPartition, released: boolean) => void;
  /** Resolved offsets are committed at most this often (ms); 0 commits after every batch. */
  commitIntervalMs?: number;
  /** Called once per slice after its records were processed and before its outputs are sent (Redis WAIT: acknowledged means replicated). */
  replicated?: () => Promise<void>;
  /**
   * Runs one slice's processing and its `replicated` call (the Redis adapter's `oneConnection`: a slice whose
   * store connection was lost meanwhile is refused retriably, so no command of it runs on a new primary after
   * one applied on the old primary).
   */
  sliceScope?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * How often a batch in progress calls the consumer's heartbeat (a consumer that heartbeats only between
 * batches needs it; one that heartbeats on its own timer ignores it) and checks that its partition is
 * still its own: records waiting on a slow Redis (each call bounded by REDIS_COMMAND_TIMEOUT_MS) must not
 * be sent for partitions that went to another member meanwhile.
 */
const HEARTBEAT_WHILE_WORKING_MS = 1000;

/** Runs tasks with at most `limit` in flight. */
async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}

/** `records` in consecutive slices of at most `size`. */
function slicesOf<T>(records: T[], size: number): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < records.length; i += size) slices.push(records.slice(i, i + size));
  return slices;
}

function groupByKey(messages: InboundRecord[]): InboundRecord[][] {
  const groups = new Map<string, InboundRecord[]>();
  const loose: InboundRecord[][] = [];
  for (const message of messages) {
    if (!message.key) {
      loose.push([message]);
      continue;
    }
    const key = message.key.toString('latin1');
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  return [...groups.values(), ...loose];
}

export class BatchWorker {
  private stopping = false;
  private inFlight = 0;
  private idle?: () => void;
  private readonly commits: CommitPacing;
  /** Partitions held behind a record that failed retriably. */
  private readonly held: HeldPartitions;

  constructor(private readonly options: BatchWorkerOptions) {
    this.commits = new CommitPacing(options.commitIntervalMs ?? 0, options.log);
    this.held = new HeldPartitions({
      consumer: options.consumer,
      log: options.log,
      backoffMs: options.retryBackoffMs ?? { initial: 100, max: 5000 },
      isStopping: () => this.stopping,
      ...(options.onHold ? { onHold: options.onHold } : {}),
    });
  }

  async run(): Promise<void> {
    const { consumer, partitionsConsumedConcurrently } = this.options;
    await consumer.run({
      autoCommit: false, // see commit()
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Stop fetching, let the batches in flight finish, commit everything they resolved, then leave. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.held.cancelResumes();
    try {
      this.options.consumer.pause([...this.options.processors.keys()].map((topic) => ({ topic })));
    } catch (error) {
      // a consumer that stopped for good has no group to pause: leave anyway
      this.options.log.warn({ err: (error as Error).message }, 'could not pause the consumer; leaving');
    }
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    await this.commits.final().catch((error) => this.options.log.warn({ err: (error as Error).message }, 'final offset commit failed; the uncommitted records will be replayed'));
    await this.options.consumer.disconnect();
  }

  private async eachBatch(payload: BatchContext): Promise<void> {
    if (this.stopping) return;
    this.inFlight++;
    try {
      await this.handleBatch(payload);
    } finally {
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  /** Partitions held now (paused behind a record that failed retriably). */
  get heldPartitions(): number {
    return this.held.count;
  }

  private async handleBatch(payload: BatchContext): Promise<void> {
    const { batch } = payload;
    const processor = this.options.processors.get(batch.topic);
    if (!processor || batch.messages.length === 0) return;
    const heldKey = `${batch.topic}|${batch.partition}`;
    const done = new Set(this.held.doneAfter(heldKey));
    const pending = batch.messages.filter((m) => !done.has(m.offset));
    const isDone = (m: InboundRecord) => done.has(m.offset);
    // Resolves the contiguous prefix of done records: the partition is held from the first one not done.
    // Records only become done, so the prefix is walked once per batch, not once per slice (per slice, a
    // batch of 130,000 records in slices of 256 would cost 33 million lookups).
    let doneUpTo = 0;
    const firstNotDone = () => {
      while (doneUpTo < batch.messages.length && isDone(batch.messages[doneUpTo])) doneUpTo++;
      return doneUpTo === batch.messages.length ? -1 : doneUpTo;
    };
    const resolveDone = () => {
      const upTo = firstNotDone();
      const last = upTo === -1 ? batch.messages.length : upTo;
      if (last > 0) payload.resolveOffset(batch.messages[last - 1].offset);
    };
    // A held partition tries its held record alone first: while it fails, nothing behind it is begun.
    const probe = this.held.holds(heldKey) ? 1 : 0;
    const slices = [pending.slice(0, probe), ...slicesOf(pending.slice(probe), this.options.sliceRecords)].filter((slice) => slice.length > 0);
    if (this.options.transactions) {
      if (!(await this.sliceInTransactions(payload, slices, processor, done))) return;
    } else {
      for (const slice of slices) {
        const outcomes = await this.inSlice(async () => {
          const processed = await this.whileHeartbeating(payload, (lost) => this.processAll(batch.topic, batch.partition, slice, processor, lost));
          // The partition went to another member meanwhile: sending and committing are its business now (it
          // handles these records again; the effects already made are recorded and answered the same way).
          if (!payload.isRunning() || payload.isStale()) return undefined;
          await this.options.replicated?.();
          return processed;
        });
        if (!outcomes) return;
        const answered = slice.filter((m) => outcomes.get(m.offset) !== undefined);
        await this.send(batch.topic, batch.partition, answered, outcomes);
        for (const m of answered) done.add(m.offset);
        resolveDone();
        await this.commits.commit(payload);
        if (answered.length < slice.length) break;
      }
    }
    if (slices.length === 0) resolveDone(); // every record was done before: only the offsets are left
    if (firstNotDone() === -1) this.held.release(heldKey);
    else if (!this.stopping) this.held.hold(heldKey, batch.topic, batch.partition, batch.messages.slice(firstNotDone()), isDone);
    await payload.heartbeat();
  }

  private inSlice<T>(work: () => Promise<T>): Promise<T> {
    return this.options.sliceScope ? this.options.sliceScope(work) : work();
  }

  /**
   * Runs `work` heartbeating meanwhile; `lost()` says when the member may no longer own the partition (the
   * consumer stops, the partition is stale, or a heartbeat failed: a rebalance). A failed heartbeat ends the
   * batch with its error once the work has stopped, as a failed heartbeat between batches does.
   */
  private async whileHeartbeating<T>(payload: BatchContext, work: (lost: () => boolean) => Promise<T>): Promise<T> {
    let failure: { error: unknown } | undefined;
    const timer = setInterval(() => void payload.heartbeat().catch((error: unknown) => (failure ??= { error })), HEARTBEAT_WHILE_WORKING_MS);
    try {
      const result = await work(() => failure !== undefined || !payload.isRunning() || payload.isStale());
      if (failure !== undefined) throw failure.error;
      return result;
    } finally {
      clearInterval(timer);
    }
  }

  /** Processes records key by key; a record whose processing failed retriably, or was not begun, has no outcome. */
  private async processAll(topic: string, partition: number, messages: InboundRecord[], processor: RecordProcessor, lost: () => boolean) {
    const outcomes = new Map<string, RecordOutcome | undefined>();
    // Once a record failed retriably the partition is held from it: no further record is begun (those in
    // flight finish and are remembered as done).
    let held = false;
    const chains = groupByKey(messages).map((chain) => async () => {
      for (const message of chain) {
        if (held || lost()) return;
        const position = { topic, partition, offset: message.offset };
        const started = performance.now();
        try {
          const processed = await processor(message, position);
          // Records that are not commands (NP responses) are logged with the id their headers or position give.
          const outcome = processed.correlationId ? processed : { ...processed, correlationId: correlationIdOf(message.headers, position) };
          outcomes.set(message.offset, outcome);
          this.options.onOutcome?.(outcome, position, performance.now() - started, message);
        } catch (error) {
          const correlationId = correlationIdOf(message.headers, position);
          if (!(error instanceof RetriableError)) {
            this.options.log.error({ err: error, correlationId, ...position }, 'record processor failed unexpectedly; dead-lettering the record');
            const outcome = { outbound: this.options.deadLetter(message, position, error), outcome: 'DEAD_LETTER', correlationId };
            outcomes.set(message.offset, outcome);
            this.options.onOutcome?.(outcome, position, performance.now() - started, message);
            continue;
          }
          this.options.log.warn({ err: error.message, correlationId, ...position }, 'retriable failure');
          outcomes.set(message.offset, undefined);
          held = true;
          return;
        }
      }
    });
    await runLimited(chains, this.options.concurrency);
    return outcomes;
  }

  /**
   * Exactly once: each slice's outputs and offset go to the door without waiting for its transaction, so the
   * next slice is processed while they travel; the batch ends once every slice given is settled. Only a slice's
   * records up to the first one not done are given (their offset is committed with their outputs; what was done
   * after it is done again, replayed from its recorded outcome, when fetched again). The offsets resolved are
   * those of the slices settled in order up to the first that failed: the door refuses every later unit of the
   * partition, and the records from the failed one on are handed out again. Once every slice is given, the
   * batch is released: the partition's next batch is processed while these commit. False when the partition
   * went to another member meanwhile (what is left is its business).
   */
  private async sliceInTransactions(payload: BatchContext, slices: InboundRecord[][], processor: RecordProcessor, done: Set<string>): Promise<boolean> {
    const { topic, partition } = payload.batch;
    const transactions = this.options.transactions!;
    const given: { records: InboundRecord[]; settled: Promise<unknown> }[] = [];
    let failure: { error: unknown } | undefined;
    let partitionLost = false;
    let handedAll = true;
    for (const slice of slices) {
      const prepared = transactions.preparing();
      try {
        const processed = await this.inSlice(async () => {
          const outcomes = await this.whileHeartbeating(payload, (lost) => this.processAll(topic, partition, slice, processor, lost));
          partitionLost = !payload.isRunning() || payload.isStale();
          if (partitionLost || failure) return undefined;
          const cut = slice.findIndex((m) => outcomes.get(m.offset) === undefined);
          const answered = cut === -1 ? slice : slice.slice(0, cut);
          if (answered.length > 0) await this.options.replicated?.();
          return { outcomes, answered };
        });
        if (!processed) {
          handedAll = false;
          break;
        }
        const { outcomes, answered } = processed;
        if (answered.length > 0) {
          const settled = this.sendInTransaction(payload, answered, outcomes).then(
            () => undefined,
            (error: unknown) => (failure ??= { error }),
          );
          given.push({ records: answered, settled });
        }
        if (answered.length < slice.length) {
          handedAll = false;
          break;
        }
      } catch (error) {
        // a failed heartbeat, Redis short of replicas: what was given before still settles first
        failure ??= { error };
        handedAll = false;
        break;
      } finally {
        prepared();
      }
    }
    // every record is on its way: the partition's next batch is processed while these commit
    if (handedAll) payload.release();
    for (const { records, settled } of given) {
      if ((await settled) !== undefined) break;
      for (const m of records) done.add(m.offset);
      payload.resolveCommitted(records[records.length - 1].offset);
    }
    if (failure) throw failure.error;
    return !partitionLost;
  }

  /** The records' outputs and the offset of the last of them, in one transaction; refused outputs dead-lettered in it. */
  private async sendInTransaction(payload: BatchContext, records: InboundRecord[], outcomes: Map<string, RecordOutcome | undefined>): Promise<void> {
    const { topic, partition } = payload.batch;
    const sourceOf = this.sourcesOf(records, outcomes);
    await this.options.transactions!.send({
      messages: [...sourceOf.keys()],
      offsets: { generation: payload.generation, topic, partition, first: records[0].offset, offset: records[records.length - 1].offset },
      replaceRefused: (refused) => refused.map(({ message, reason }) => this.deadLetterRefused(topic, partition, sourceOf.get(message)!, message, reason, outcomes)),
    });
  }

  private sourcesOf(records: InboundRecord[], outcomes: Map<string, RecordOutcome | undefined>): Map<Outbound, InboundRecord> {
    const sourceOf = new Map<Outbound, InboundRecord>();
    for (const record of records) for (const message of outcomes.get(record.offset)!.outbound) sourceOf.set(message, record);
    return sourceOf;
  }

  private deadLetterRefused(topic: string, partition: number, record: InboundRecord, message: Outbound, reason: string, outcomes: Map<string, RecordOutcome | undefined>): Outbound {
    const position = { topic, partition, offset: record.offset };
    this.options.log.warn(
      { ...position, correlationId: outcomes.get(record.offset)?.correlationId, target: message.topic, targetPartition: message.partition, reason },
      'Kafka refused an output for good; dead-lettering it',
    );
    return this.options.undeliverable(message, record, position, reason);
  }

  /** Sends the records' outputs; what Kafka refuses for good goes to the dead-letter topic in its place. */
  private async send(topic: string, partition: number, records: InboundRecord[], outcomes: Map<string, RecordOutcome | undefined>): Promise<void> {
    const sourceOf = this.sourcesOf(records, outcomes);
    if (sourceOf.size === 0) return;
    const refused = await this.options.sender.send([...sourceOf.keys()]);
    if (refused.length === 0) return;
    const deadLetters = refused.map(({ message, reason }) => this.deadLetterRefused(topic, partition, sourceOf.get(message)!, message, reason, outcomes));
    const refusedAgain = await this.options.sender.send(deadLetters);
    // The dead-letter topic is ours: refusing it is a deployment fault, so the batch waits for an operator.
    if (refusedAgain.length > 0) throw new RetriableError(`the dead-letter topic refused ${refusedAgain.length} message(s): ${refusedAgain[0].reason}`);
  }
}
