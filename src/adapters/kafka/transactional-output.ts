import { randomUUID } from 'node:crypto';
import { Producer, ProduceAcks, type Consumer, type Message } from '@platformatic/kafka';
import type { Logger } from '../../contract/log';
import { outboundBytes, type OutputUnit, type PartitionCount, type Refused, type Outbound, type TransactionalOutputs, type TransactionListener } from '../../contract/transport';
import { transactionalIdPrefix } from '../../config/kafka';
import { clientOptions, type KafkaConnection } from './connection';
import { byPartition, chunkByBytes, MAX_SEND_BYTES, type Placed } from './partitioned-sender';
import { brokerErrorNames, explainKafkaError } from './kafka-error';
import { isClusterFailure, isSendRefusal, kafkaErrorType } from './send-refusal';
import { packCalls } from './spanning-calls';
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
 * so that is retried at once, a few ms apart — with the client's usual 500 ms a transaction takes 546 ms
 * instead of 22 (150 commands/s, measured). Anything else is retried 250 ms apart, a short while: a call
 * retried in the client keeps its first target (an offset commit keeps going to a coordinator that has
 * died: a 10 s pause), while a transaction that fails is begun again here on a fresh producer that looks
 * everything up again.
 */
const TRANSACTION_CALL_RETRIES = 10;
const transactionRetryDelay = (_client: unknown, _operation: string, attempt: number, _retries: number, error: Error): number =>
  brokerErrorNames(error).includes('CONCURRENT_TRANSACTIONS') ? 2 * attempt : 250;

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

interface Pending {
  unit: OutputUnit;
  settle: (error?: unknown) => void;
}

/**
 * The exactly-once door, on one transactional producer. A producer has one transaction open at a time, so
 * the units given while one is in flight are written together in the next: the batches of several
 * partitions share a transaction instead of queueing one after another (group commit).
 */
export class TransactionalOutput implements TransactionalOutputs {
  private producer: ServiceProducer;
  private pending: Pending[] = [];
  private flushing = false;
  /** After a failed transaction the group's coordinator is looked up again: it may be what moved. */
  private coordinatorStale = false;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly transactionalId: string,
    private readonly countOf: PartitionCount,
    /** Topics' max.message.bytes: what a transaction must not be given (topic-size-limits.ts). */
    private readonly limitOf: TopicSizeLimit,
    /** The group whose offsets the transactions commit (undefined: events only, a scheduler's). */
    private readonly group: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined,
    private readonly onSent: (messages: Outbound[]) => void,
    private readonly log: Logger,
    private readonly onTransaction: TransactionListener = () => undefined,
  ) {
    this.producer = this.createProducer();
  }

  send(unit: OutputUnit): Promise<void> {
    if (unit.messages.length === 0 && !unit.offsets) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- it forwards the producer's failure as it came
      this.pending.push({ unit, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.flushing) setImmediate(() => void this.flush());
    });
  }

  async close(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.producer.close().catch(() => undefined);
  }

  private createProducer(): ServiceProducer {
    return new Producer<Bytes, Buffer, string, Bytes>({
      ...clientOptions(this.connection, 'transactional'),
      retries: TRANSACTION_CALL_RETRIES,
      retryDelay: transactionRetryDelay,
      acks: ProduceAcks.ALL,
      idempotent: true,
      transactionalId: this.transactionalId,
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
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        // A unit that cannot be placed (its dead letters refused too) fails alone, not the units sharing its transaction.
        const placed: { pending: Pending; messages: Placed[] }[] = [];
        for (const p of batch) {
          try {
            placed.push({ pending: p, messages: await this.place(p.unit, p.unit.messages) });
          } catch (error) {
            p.settle(error ?? new Error('the output could not be placed'));
          }
        }
        if (placed.length === 0) continue;
        await this.commitEach(placed);
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Commits the units in one transaction. When that fails for what was sent rather than for the cluster
   * (which every unit would meet again), each is tried again in a transaction of its own, so one unit that
   * cannot be written fails alone instead of holding every partition's.
   */
  private async commitEach(placed: { pending: Pending; messages: Placed[] }[]): Promise<void> {
    try {
      this.onSent(await this.commitTogether(placed.map(({ pending, messages }) => ({ unit: pending.unit, messages }))));
      for (const { pending } of placed) pending.settle();
      return;
    } catch (error) {
      if (placed.length === 1 || isClusterFailure(error)) {
        for (const { pending } of placed) pending.settle(error ?? new Error('the output transaction failed'));
        return;
      }
      this.log.warn({ err: (error as Error)?.message, units: placed.length }, 'an output transaction failed; its units are written one by one');
    }
    for (const one of placed) await this.commitEach([one]);
  }

  /** Writes the units' placed messages and their offsets in one transaction; returns what was written. */
  private async commitTogether(units: { unit: OutputUnit; messages: Placed[] }[]): Promise<Outbound[]> {
    const offsets = units.flatMap(({ unit }) => (unit.offsets ? [unit.offsets] : []));
    const all = units.flatMap(({ messages }) => messages);
    try {
      await this.transact(all, offsets);
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
      await this.transact(kept, offsets);
      return kept;
    }
  }

  /**
   * A unit's messages on their partitions; those with nowhere to go, or above their topic's size limit, replaced
   * by the unit's dead letters (a message the topic cannot take must not enter a transaction: topic-size-limits.ts).
   */
  private async place(unit: OutputUnit, messages: Outbound[]): Promise<Placed[]> {
    const { groups, refused } = await byPartition(messages, this.countOf);
    const limits = new Map<string, number | undefined>();
    const placed: Placed[] = [];
    for (const message of [...groups.values()].flat()) {
      if (!limits.has(message.topic)) limits.set(message.topic, await this.limitOf(message.topic));
      const reason = sizeRefusal(message, limits.get(message.topic));
      if (reason === undefined) placed.push(message);
      else refused.push({ message: message.original, reason });
    }
    if (refused.length > 0) placed.push(...(await this.placeOnly(unit.replaceRefused(refused))));
    return placed;
  }

  /** Dead letters go to our own topic: a refusal there is a deployment fault, and the unit fails (retried). */
  private async placeOnly(messages: Outbound[]): Promise<Placed[]> {
    const { groups, refused } = await byPartition(messages, this.countOf);
    if (refused.length > 0) throw new Error(`the dead-letter topic refused ${refused.length} message(s): ${refused[0].reason}`);
    return [...groups.values()].flat();
  }

  private async transact(placed: Placed[], offsets: NonNullable<OutputUnit['offsets']>[]): Promise<void> {
    let transaction: Transaction | undefined;
    const work = async () => {
      transaction = await this.producer.beginTransaction();
      await this.write(transaction, placed);
      if (offsets.length > 0) {
        if (!this.group) throw new Error('offsets given to an output without a consumer group');
        await transaction.addConsumer(this.group);
        const coordinatorId = await this.groupCoordinator();
        // One at a time: the client merges concurrent offset commits of one transaction into one call.
        for (const at of offsets) await transaction.addOffset(this.offsetMessage(at, coordinatorId));
      }
      await transaction.commit();
    };
    const began = performance.now();
    try {
      await withinStallLimit(work());
      this.onTransaction('committed', performance.now() - began);
    } catch (error) {
      this.onTransaction('aborted', performance.now() - began);
      await this.abandon(transaction, error);
      throw explainKafkaError(error); // the reasons in one message (a failed send is "Producing messages failed." otherwise)
    }
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
        this.log.warn({ err: (error as Error)?.message, cause: (cause as Error)?.message }, 'could not abort the output transaction; the next producer fences it'),
      );
    }
    this.coordinatorStale = true;
    const old = this.producer;
    this.producer = this.createProducer();
    void old.close(true).catch(() => undefined); // not awaited: a producer stuck in a call may never close
  }

  /**
   * The broker coordinating the consumer group, where the offsets are committed: as the consumer knows it, or
   * asked of the cluster when the consumer has lost it (its coordinator died) or a transaction failed.
   */
  private async groupCoordinator(): Promise<number> {
    const known = this.group!.coordinatorId;
    if (known !== null && !this.coordinatorStale) return known;
    const found = await this.group!.findGroupCoordinator();
    this.coordinatorStale = false;
    return found;
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
