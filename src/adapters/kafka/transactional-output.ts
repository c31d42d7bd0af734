import { randomUUID } from 'node:crypto';
import { FindCoordinatorKeyTypes, Producer, ProduceAcks, type Consumer, type Message } from '@platformatic/kafka';
import { withAdmin } from './admin-session';
import type { Logger } from '../../contract/log';
import { outboundBytes, type OutputUnit, type PartitionCount, type Refused, type Outbound, type TransactionalOutputs, type TransactionListener } from '../../contract/transport';
import { transactionalIdPrefix } from '../../config/kafka';
import { clientOptions, type KafkaConnection } from './connection';
import { byPartition, chunkByBytes, MAX_SEND_BYTES, type Placed } from './partitioned-sender';
import { brokerErrorNames, explainKafkaError } from './kafka-error';
import { isClusterFailure, isSendRefusal, kafkaErrorType } from './send-refusal';
import { packCalls } from './spanning-calls';
import { FailedPartitions } from './failed-partitions';
import { sizeRefusal, type TopicSizeLimit } from './topic-size-limits';
import { SERIALIZERS, type Bytes, type ServiceProducer } from './producer';

// Exactly-once outputs (docs/reliability.md): a consumed slice's replies, events, NP requests and dead letters
// and its offset go out in one Kafka transaction, the offset committed for the generation the records were
// handed out in (KIP-447), so a member that lost its partitions cannot commit, and its writes stay invisible
// to read_committed readers. A redelivered command replays its recorded outcome, so the slice sent again in a
// later transaction carries the same records.

/**
 * The transactional id: stable across a worker's restarts when it has a static group instance id (its next
 * start fences the old producer and aborts a transaction it left open at once), else unique to this process
 * (a transaction left open by a killed process is aborted by the coordinator after the transaction timeout,
 * the client's request timeout).
 */
export const transactionalIdOf = (clientId: string, groupInstanceId: string | undefined): string => `${transactionalIdPrefix(clientId)}${groupInstanceId ?? randomUUID()}`;

/** The client's transaction object, as its producer's beginTransaction() gives it. */
type Transaction = Awaited<ReturnType<ServiceProducer['beginTransaction']>>;

/**
 * A transaction still unfinished after this long is given up (a fresh producer fences it): the client's own
 * retries end well before (REQUEST_RETRIES × REQUEST_RETRY_DELAY_MS), so only a call that never answers gets
 * here — and every partition's outputs would wait behind it.
 */
export const TRANSACTION_STALL_MS = 30_000;

/**
 * Retries of one call of a transaction inside the client. Each transaction's first call finds the previous one
 * still being completed (the coordinator writes its markers after answering its commit: CONCURRENT_TRANSACTIONS),
 * so that is retried soon, 2 ms apart growing to 20 (Java's producer waits 20 ms) — with the client's usual
 * 500 ms a transaction takes 546 ms instead of 22 (150 commands/s, measured) — for up to 0.7 s in all: on a
 * loaded machine the markers take longer than the 0.1 s that ten 2 ms steps gave (lost-commit-answer.test.ts
 * failed so, 11 times in 4.9 s). Anything else is retried about 60 ms apart, 2.5 s in all: a call retried in
 * the client keeps its first target (an offset commit keeps going to a coordinator that has died: a 10 s
 * pause), while a transaction that fails is begun again here on a fresh producer that looks everything up again.
 */
const TRANSACTION_CALL_RETRIES = 40;
const transactionRetryDelay = (_client: unknown, _operation: string, attempt: number, _retries: number, error: Error): number =>
  brokerErrorNames(error).includes('CONCURRENT_TRANSACTIONS') ? Math.min(2 * attempt, 20) : 62;

async function withinStallLimit<T>(work: Promise<T>, limitMs = TRANSACTION_STALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the output transaction did not finish within ${limitMs} ms`)), limitMs);
  });
  try {
    return await Promise.race([work, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long a failed transaction's outcome is sought (withoutCommitted) before its units are sent again: past a
 * coordinator's move (the stack's broker session is 4 s; a loaded cluster takes a few more).
 */
const COMMIT_RESOLVE_MS = 15_000;

/**
 * Failures of a transaction whose commit had been asked for and got no answer that says it failed: it may
 * have gone through. A failure before (an offset commit refused for a generation that moved on, a send
 * refused), or an EndTxn answered with one of these, is an abort for certain: the offsets the group has then
 * are another member's, and must not pass for this transaction's (a zombie resumed past its transaction's
 * timeout has it aborted by the coordinator and its EndTxn answered INVALID_PRODUCER_EPOCH).
 */
const commitOutcomeUnknown = new WeakSet<object>();
const COMMIT_REFUSED = new Set([
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_TXN_STATE',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'INVALID_PRODUCER_ID_MAPPING',
  'UNKNOWN_PRODUCER_ID',
  'TRANSACTION_ABORTABLE',
]);
const mayHaveCommitted = (committing: boolean, error: unknown): boolean => committing && !brokerErrorNames(error).some((name) => COMMIT_REFUSED.has(name));

interface Pending {
  unit: OutputUnit;
  settle: (error?: unknown) => void;
}

/** A pending unit with its messages on their partitions. */
interface PlacedUnit {
  pending: Pending;
  messages: Placed[];
}

export interface TransactionalOutputOptions {
  transactionalId: string;
  countOf: PartitionCount;
  /** Topics' max.message.bytes: what a transaction must not be given (topic-size-limits.ts). */
  limitOf: TopicSizeLimit;
  /** The group whose offsets the transactions commit (undefined: events only, a scheduler's). */
  group: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined;
  /**
   * How long a transaction stays open for units announced in preparation (`preparing`); it commits as soon
   * as none is, so a transaction is never held open for nothing.
   */
  commitIntervalMs: number;
  onSent: (messages: Outbound[]) => void;
  log: Logger;
  onTransaction?: TransactionListener;
}

/**
 * The exactly-once door, on one transactional producer. A producer has one transaction open at a time: it
 * takes the units given and those of the slices being processed when it opened (group commit: the partitions
 * of one round share it), writing each as it comes, then commits the offsets of all of them, one per
 * partition. It does not wait for slices begun after it opened (they go in the next, so a transaction is
 * not held open by a steady flow), nor longer than the commit interval for any.
 */
export class TransactionalOutput implements TransactionalOutputs {
  private producer: ServiceProducer;
  private pending: Pending[] = [];
  private flushing = false;
  /** Units announced and not yet given, by the epoch they were announced in (one per transaction opened). */
  private readonly inPreparation = new Map<number, number>();
  private epoch = 0;
  /** Wakes an open transaction waiting for a unit in preparation. */
  private arrival?: () => void;
  private readonly failures = new FailedPartitions();
  /** After a failed transaction the group's coordinator is looked up again: it may be what moved. */
  private coordinatorStale = false;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly options: TransactionalOutputOptions,
  ) {
    this.producer = this.createProducer();
  }

  send(unit: OutputUnit): Promise<void> {
    if (unit.messages.length === 0 && !unit.offsets) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- it forwards the producer's failure as it came
      this.pending.push({ unit, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      this.wake();
      if (!this.flushing) setImmediate(() => void this.flush());
    });
  }

  preparing(): () => void {
    const epoch = this.epoch;
    this.inPreparation.set(epoch, (this.inPreparation.get(epoch) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = this.inPreparation.get(epoch)! - 1;
      if (left === 0) this.inPreparation.delete(epoch);
      else this.inPreparation.set(epoch, left);
      this.wake();
    };
  }

  async close(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.producer.close().catch(() => undefined);
  }

  private wake(): void {
    const arrival = this.arrival;
    this.arrival = undefined;
    arrival?.();
  }

  private createProducer(): ServiceProducer {
    return new Producer<Bytes, Buffer, string, Bytes>({
      ...clientOptions(this.connection, 'transactional'),
      retries: TRANSACTION_CALL_RETRIES,
      retryDelay: transactionRetryDelay,
      acks: ProduceAcks.ALL,
      idempotent: true,
      transactionalId: this.options.transactionalId,
      // A new producer, as InitProducerId says with -1/-1 (KIP-360). The client's default sends producer id 0,
      // epoch 0, which the broker takes for a claim to be that producer: once the transactional id has another
      // (any restart of a worker with a static id, any producer started again here) it answers PRODUCER_FENCED
      // for ever. test/integration/transactional-output.test.ts restarts a producer under the same id.
      producerId: -1n,
      producerEpoch: -1,
      maxInflights: 1,
      autocreateTopics: false,
      serializers: SERIALIZERS,
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0) await this.commitGathered();
    } finally {
      this.flushing = false;
    }
  }

  /**
   * The pending units, placed, without those that cannot be written now: a unit behind a failed one of its
   * partition, and one that cannot be placed (its dead letters refused too) fail alone.
   */
  private async takePending(): Promise<PlacedUnit[]> {
    const taken = this.pending;
    this.pending = [];
    const placed: PlacedUnit[] = [];
    for (const pending of taken) {
      if (this.failures.refuses(pending.unit.offsets)) {
        pending.settle(new Error('an earlier output of this partition failed; its records are handed out again'));
        continue;
      }
      try {
        placed.push({ pending, messages: await this.place(pending.unit, pending.unit.messages) });
      } catch (error) {
        this.failed(pending, error ?? new Error('the output could not be placed'));
      }
    }
    return placed;
  }

  private failed(pending: Pending, error: unknown): void {
    if (pending.unit.offsets) this.failures.failed(pending.unit.offsets);
    pending.settle(error);
  }

  /** True while the open transaction (opened at `openedAt`, in `epoch`) waits for units announced before it opened, within the commit interval. */
  private waitsFor(openedAt: number, epoch: number): boolean {
    if (performance.now() - openedAt >= this.options.commitIntervalMs) return false;
    for (const announcedIn of this.inPreparation.keys()) if (announcedIn <= epoch) return true;
    return false;
  }

  /** Resolves when a unit is given or announced done, or at the end of the commit interval. */
  private async nextArrival(openedAt: number): Promise<void> {
    if (this.pending.length > 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.arrival = resolve;
      timer = setTimeout(resolve, Math.max(0, openedAt + this.options.commitIntervalMs - performance.now()));
    });
    clearTimeout(timer);
    this.arrival = undefined;
  }

  /**
   * One transaction of the units given and of the slices in preparation when it opened (up to the commit interval). When it
   * fails, the units it did write (a commit whose answer was lost) are settled as sent; the others are tried
   * again one by one when the failure was theirs rather than the cluster's, so one unit that cannot be written
   * fails alone instead of holding every partition's.
   */
  private async commitGathered(): Promise<void> {
    const units: PlacedUnit[] = [];
    let transaction: Transaction | undefined;
    // set when the transaction is given up (stalled): work still running must take no more units into it
    let givenUp = false;
    // the commit was asked for: a failure from then on may hide a commit that went through
    let committing = false;
    const openedAt = performance.now();
    const epoch = this.epoch++;
    const work = async () => {
      transaction = await this.producer.beginTransaction();
      for (;;) {
        if (givenUp) throw new Error('the output transaction was given up');
        const taken = await this.takePending();
        units.push(...taken);
        if (taken.length > 0)
          await this.write(
            transaction,
            taken.flatMap(({ messages }) => messages),
          );
        if (!this.waitsFor(openedAt, epoch)) break;
        await this.nextArrival(openedAt);
      }
      await this.commitOffsets(
        transaction,
        units.map(({ pending }) => pending.unit),
      );
      committing = true;
      if (units.length > 0) await transaction.commit();
      else await transaction.cancel();
    };
    try {
      await withinStallLimit(work());
      this.options.onTransaction?.('committed', performance.now() - openedAt);
      this.options.onSent(units.flatMap(({ messages }) => messages));
      for (const { pending } of units) pending.settle();
      return;
    } catch (error) {
      givenUp = true;
      this.options.onTransaction?.('aborted', performance.now() - openedAt);
      await this.abandon(transaction, error);
      const unwritten = mayHaveCommitted(committing, error) ? await this.withoutCommitted(units) : units;
      if (unwritten.length === 0) return;
      const explained = explainKafkaError(error); // the reasons in one message (a failed send is "Producing messages failed." otherwise)
      if (unwritten.length === 1 || isClusterFailure(error)) {
        for (const { pending } of unwritten) this.failed(pending, explained);
        return;
      }
      this.options.log.warn({ err: explained.message, units: unwritten.length }, 'an output transaction failed; its units are written one by one');
      for (const one of unwritten) await this.commitAlone(one);
    }
  }

  /** One unit in a transaction of its own (refused messages replaced by their dead letters). */
  private async commitAlone({ pending, messages }: PlacedUnit): Promise<void> {
    if (this.failures.refuses(pending.unit.offsets)) {
      pending.settle(new Error('an earlier output of this partition failed; its records are handed out again'));
      return;
    }
    try {
      this.options.onSent(await this.commitTogether([{ unit: pending.unit, messages }]));
      pending.settle();
    } catch (error) {
      if (!commitOutcomeUnknown.has(error as object) || (await this.withoutCommitted([{ pending, messages }])).length > 0) this.failed(pending, error);
    }
  }

  /**
   * The units of a failed transaction whose commit was asked for that it did not write. A commit reported as failed may have gone through:
   * a coordinator that logged the commit and died before answering has it completed by its successor, and the
   * slice sent again would show every reply and event twice. The offsets say which it was, being committed in
   * the transaction: once a fresh producer's first call has returned (InitProducerId waits until the coordinator
   * has completed or aborted the failed transaction), a unit whose offset is committed was written. Those are
   * settled as sent; when the cluster cannot say in time, every unit is sent again (at least once, as before).
   */
  private async withoutCommitted(placed: PlacedUnit[]): Promise<PlacedUnit[]> {
    const positions = placed.flatMap(({ pending }) => (pending.unit.offsets ? [pending.unit.offsets] : []));
    if (positions.length === 0 || !this.options.group) return placed;
    let committed: Map<string, bigint[]>;
    try {
      committed = await this.committedOffsets(positions);
    } catch (error) {
      this.options.log.warn({ err: (error as Error)?.message }, 'could not learn whether a failed output transaction committed; its units are sent again');
      return placed;
    }
    // Offsets past the unit's are its own only while the member is still in the generation it wrote them
    // for: once the group moved on, another member may have committed them (a zombie's own are refused).
    const group = this.options.group;
    const stillItsGeneration = (at: NonNullable<OutputUnit['offsets']>) => at.generation.generationId < 0 || at.generation.generationId === group.generationId;
    const isWritten = (at: OutputUnit['offsets']) => at !== undefined && stillItsGeneration(at) && (committed.get(at.topic)?.[at.partition] ?? -1n) > BigInt(at.offset);
    const unwritten = placed.filter(({ pending }) => !isWritten(pending.unit.offsets));
    const written = placed.filter((unit) => !unwritten.includes(unit));
    if (written.length > 0) {
      this.options.log.warn({ units: written.length }, 'an output transaction reported as failed had committed; its units are not sent again');
      this.options.onSent(written.flatMap(({ messages }) => messages));
      for (const { pending } of written) pending.settle();
    }
    if (unwritten.length > 0) this.options.log.warn({ units: unwritten.length }, 'a failed output transaction did not commit; its units are sent again');
    return unwritten;
  }

  /** The group's committed offsets of these partitions, read after the failed transaction was resolved. */
  private async committedOffsets(positions: NonNullable<OutputUnit['offsets']>[]): Promise<Map<string, bigint[]>> {
    const partitions = new Map<string, number[]>();
    for (const { topic, partition } of positions) partitions.set(topic, [...new Set([...(partitions.get(topic) ?? []), partition])]);
    const deadline = Date.now() + COMMIT_RESOLVE_MS;
    for (;;) {
      try {
        return await withinStallLimit(
          (async () => {
            const transaction = await this.producer.beginTransaction(); // InitProducerId, answered once the old transaction is done
            await transaction.cancel(); // nothing was begun at the broker: ended here alone
            return this.options.group!.listCommittedOffsets({ topics: [...partitions].map(([topic, list]) => ({ topic, partitions: list })) });
          })(),
          Math.max(1, deadline - Date.now()),
        );
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        this.replaceProducer();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Writes the units' placed messages and their offsets in one transaction; returns what was written. */
  private async commitTogether(units: { unit: OutputUnit; messages: Placed[] }[]): Promise<Outbound[]> {
    const all = units.flatMap(({ messages }) => messages);
    try {
      await this.transact(
        all,
        units.map(({ unit }) => unit),
      );
      return all;
    } catch (error) {
      if (!isSendRefusal(error)) throw error;
      // A message Kafka refuses for good (too large, a topic it may not write): find it, each message alone in
      // a transaction that is aborted, and write the others with its dead letter in its place.
      const kept: Placed[] = [];
      for (const { unit, messages } of units) {
        const refused: Refused<Outbound>[] = [];
        for (const one of messages) {
          const reason = await this.probe(one);
          if (reason === undefined) kept.push(one);
          else refused.push({ message: one.original, reason });
        }
        if (refused.length > 0) kept.push(...(await this.placeOnly(unit.replaceRefused(refused))));
      }
      await this.transact(
        kept,
        units.map(({ unit }) => unit),
      );
      return kept;
    }
  }

  /**
   * A unit's messages on their partitions; those with nowhere to go, or above their topic's size limit, replaced
   * by the unit's dead letters (a message the topic cannot take must not enter a transaction: topic-size-limits.ts).
   */
  private async place(unit: OutputUnit, messages: Outbound[]): Promise<Placed[]> {
    const { groups, refused } = await byPartition(messages, this.options.countOf);
    const limits = new Map<string, number | undefined>();
    const placed: Placed[] = [];
    for (const message of [...groups.values()].flat()) {
      if (!limits.has(message.topic)) limits.set(message.topic, await this.options.limitOf(message.topic));
      const reason = sizeRefusal(message, limits.get(message.topic));
      if (reason === undefined) placed.push(message);
      else refused.push({ message: message.original, reason });
    }
    if (refused.length > 0) placed.push(...(await this.placeOnly(unit.replaceRefused(refused))));
    return placed;
  }

  /** Dead letters go to our own topic: a refusal there is a deployment fault, and the unit fails (retried). */
  private async placeOnly(messages: Outbound[]): Promise<Placed[]> {
    const { groups, refused } = await byPartition(messages, this.options.countOf);
    if (refused.length > 0) throw new Error(`the dead-letter topic refused ${refused.length} message(s): ${refused[0].reason}`);
    return [...groups.values()].flat();
  }

  private async transact(placed: Placed[], units: OutputUnit[]): Promise<void> {
    let transaction: Transaction | undefined;
    let committing = false;
    const work = async () => {
      transaction = await this.producer.beginTransaction();
      await this.write(transaction, placed);
      await this.commitOffsets(transaction, units);
      committing = true;
      await transaction.commit();
    };
    const began = performance.now();
    try {
      await withinStallLimit(work());
      this.options.onTransaction?.('committed', performance.now() - began);
    } catch (error) {
      this.options.onTransaction?.('aborted', performance.now() - began);
      await this.abandon(transaction, error);
      const explained = explainKafkaError(error);
      if (mayHaveCommitted(committing, error)) commitOutcomeUnknown.add(explained);
      throw explained;
    }
  }

  /**
   * Adds the units' offsets to the transaction: per partition and generation, the last record answered. A
   * partition's units of two generations (a batch handed out before a rebalance the member came through with
   * the partition, and one after) each name theirs: the older is refused and the transaction with it, and each
   * unit is then tried alone. Only the newest one's named, the older one's outputs would commit with it, and the
   * records, read again, be answered twice (rebalance-window.test.ts).
   */
  private async commitOffsets(transaction: Transaction, units: OutputUnit[]): Promise<void> {
    const last = new Map<string, NonNullable<OutputUnit['offsets']>>();
    for (const { offsets } of units) {
      if (!offsets) continue;
      const key = `${offsets.topic}|${offsets.partition}|${offsets.generation.memberId}|${offsets.generation.generationId}`;
      const known = last.get(key);
      if (!known || BigInt(offsets.offset) > BigInt(known.offset)) last.set(key, offsets);
    }
    if (last.size === 0) return;
    const group = this.options.group;
    if (!group) throw new Error('offsets given to an output without a consumer group');
    const [coordinatorId] = await Promise.all([this.groupCoordinator(group), transaction.addConsumer(group)]);
    // all partitions' at once: one round trip, not one per partition (patches/: the client answered concurrent
    // offset commits of one transaction with the first one's response, the others never sent)
    await Promise.all([...last.values()].map((at) => transaction.addOffset(this.offsetMessage(at, coordinatorId))));
  }

  /**
   * Sends the messages in calls of at most MAX_SEND_BYTES per partition (the client makes one record batch of a
   * call's messages for a partition, and the broker refuses a batch over its limit), each partition's in order.
   */
  private async write(transaction: Transaction, placed: Placed[]): Promise<void> {
    const runs = new Map<string, Placed[]>();
    for (const p of placed) {
      const key = `${p.partition}:${p.topic}`;
      const run = runs.get(key);
      if (run) run.push(p);
      else runs.set(key, [p]);
    }
    const callers = [...runs].flatMap(([key, messages]) =>
      chunkByBytes(messages, MAX_SEND_BYTES).map((chunk) => ({ runs: [{ key, topic: chunk[0].topic, messages: chunk, bytes: chunk.reduce((n, m) => n + outboundBytes(m), 0) }] })),
    );
    for (const call of packCalls(callers, MAX_SEND_BYTES)) {
      const messages = call.flatMap((c) => c.runs.flatMap((run) => run.messages));
      await transaction.send({
        messages: messages.map(({ topic, partition, key, value, headers }) => ({ topic, partition, key: key ?? undefined, value: value ?? undefined, headers })),
        acks: ProduceAcks.ALL,
      });
    }
  }

  /** Why Kafka refuses this message for good, or undefined; written in a transaction that is always aborted. */
  private async probe(message: Placed): Promise<string | undefined> {
    let transaction: Transaction | undefined;
    try {
      transaction = await this.producer.beginTransaction();
      await withinStallLimit(this.write(transaction, [message]));
      await transaction.abort();
      return undefined;
    } catch (error) {
      await this.abandon(transaction, error);
      if (!isSendRefusal(error)) throw error;
      return `${kafkaErrorType(error)}: ${(error as Error).message}`;
    }
  }

  /**
   * Aborts a failed transaction (so read_committed readers are not held until it times out) and starts a new
   * producer with the same transactional id: after a failed send the client's sequence numbers no longer match
   * the broker's, and the new producer's first call fences the old one and aborts whatever it left open.
   */
  private async abandon(transaction: Transaction | undefined, cause: unknown): Promise<void> {
    if (transaction && !transaction.completed) {
      await withinStallLimit(transaction.abort(), 5_000).catch((error: unknown) =>
        this.options.log.warn({ err: (error as Error)?.message, cause: (cause as Error)?.message }, 'could not abort the output transaction; the next producer fences it'),
      );
    }
    this.coordinatorStale = true;
    this.replaceProducer();
  }

  private replaceProducer(): void {
    const old = this.producer;
    this.producer = this.createProducer();
    void old.close(true).catch(() => undefined); // not awaited: a producer stuck in a call may never close
  }

  /**
   * The broker coordinating the consumer group, where the offsets are committed: as the consumer knows it, or,
   * after a failed transaction, asked of the cluster. Not of the consumer then: it keeps the coordinator it
   * found until one of its own calls fails, so one that died stays its answer while its calls succeed
   * elsewhere or it makes none (lost-commit-answer.test.ts hung on that: every later commit went to the dead
   * broker).
   */
  private async groupCoordinator(group: Consumer<Buffer, Buffer, Buffer, Buffer>): Promise<number> {
    const known = group.coordinatorId;
    if (known !== null && !this.coordinatorStale) return known;
    const [found] = await withAdmin(this.connection, (admin) => admin.findCoordinator({ keyType: FindCoordinatorKeyTypes.GROUP, keys: [group.groupId] }));
    if (!found) throw new Error(`no coordinator found for group ${group.groupId}`);
    this.coordinatorStale = false;
    return found.nodeId;
  }

  /** The consumed record the offset commit names: the last one done, in the generation it was handed out in. */
  private offsetMessage(at: NonNullable<OutputUnit['offsets']>, coordinatorId: number): Message<Buffer, Buffer, Buffer, Buffer> {
    const offset = BigInt(at.offset);
    const consumer = { ...at.generation, coordinatorId };
    return {
      topic: at.topic,
      partition: at.partition,
      offset,
      key: Buffer.alloc(0),
      value: Buffer.alloc(0),
      headers: new Map(),
      headerEntries: [],
      timestamp: 0n,
      leaderEpoch: -1,
      metadata: { consumer },
      commit: () => undefined,
      toJSON: () => ({
        key: Buffer.alloc(0),
        value: Buffer.alloc(0),
        headers: [],
        topic: at.topic,
        partition: at.partition,
        timestamp: '0',
        offset: offset.toString(),
        leaderEpoch: -1,
        metadata: { consumer },
      }),
    };
  }
}
