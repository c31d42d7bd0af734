import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { RetriableError } from '../errors/codes';
import type { RecordPosition } from './envelope';
import type { OutboundSender } from '../adapters/kafka/partitioned-sender';
import type { Outbound } from './outbound';

/**
 * The consume → process → produce → commit loop. Each fetched batch is split by record key: records of
 * one key run one after another (per-number order), different keys run concurrently. Everything the batch
 * produced goes out through the sender (acks=all, idempotent producer, one partition per call), and only
 * then are the offsets resolved and committed: at-least-once, with redeliveries made harmless by the reply cache.
 * A RetriableError (Redis or the registry away) holds the partition: the failed records are retried with
 * backoff, heartbeating, until they succeed or the consumer stops; they are never committed unprocessed.
 */
export interface RecordOutcome {
  outbound: Outbound[];
  outcome: string;
  operation?: string;
  correlationId?: string;
}

export type RecordProcessor = (message: KafkaMessage, position: RecordPosition) => Promise<RecordOutcome>;

export interface BatchWorkerOptions {
  consumer: Consumer;
  /** Writes what a batch produced; resolves once Kafka acknowledged all of it. */
  sender: OutboundSender;
  /** Topic name → the processor of its records. */
  processors: ReadonlyMap<string, RecordProcessor>;
  concurrency: number;
  partitionsConsumedConcurrently: number;
  log: Logger;
  onOutcome?: (outcome: RecordOutcome, position: RecordPosition, durationMs: number) => void;
  /** Where a record goes when its processor fails with anything but a RetriableError: never retried forever. */
  deadLetter: (message: KafkaMessage, position: RecordPosition, error: unknown) => Outbound[];
  retryBackoffMs?: { initial: number; max: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs tasks with at most `limit` in flight. */
async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}

function groupByKey(messages: KafkaMessage[]): KafkaMessage[][] {
  const groups = new Map<string, KafkaMessage[]>();
  const loose: KafkaMessage[][] = [];
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

  constructor(private readonly options: BatchWorkerOptions) {}

  async run(): Promise<void> {
    const { consumer, partitionsConsumedConcurrently } = this.options;
    await consumer.run({
      autoCommit: true,
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Stop fetching, let the batch in flight finish and commit (kafkajs waits for it), then leave. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.options.consumer.disconnect();
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    const processor = this.options.processors.get(batch.topic);
    if (!processor || batch.messages.length === 0) return;
    let pending = batch.messages;
    let backoff = this.options.retryBackoffMs?.initial ?? 100;
    while (pending.length > 0) {
      const outcomes = await this.processAll(batch.topic, batch.partition, pending, processor);
      const done = pending.filter((m) => outcomes.get(m.offset) !== undefined);
      await this.send(done.flatMap((m) => outcomes.get(m.offset)!.outbound));
      // Commit only the contiguous prefix of processed records; the rest is retried below.
      const firstFailed = pending.findIndex((m) => outcomes.get(m.offset) === undefined);
      const committedUpTo = firstFailed === -1 ? pending.length : firstFailed;
      if (committedUpTo > 0) resolveOffset(pending[committedUpTo - 1].offset);
      await commitOffsetsIfNecessary();
      pending = pending.filter((m) => outcomes.get(m.offset) === undefined);
      if (pending.length === 0) break;
      if (this.stopping || !isRunning() || isStale()) return;
      this.options.log.warn({ topic: batch.topic, partition: batch.partition, pending: pending.length, backoffMs: backoff }, 'retrying records after a retriable failure');
      await sleep(backoff);
      await heartbeat();
      backoff = Math.min(backoff * 2, this.options.retryBackoffMs?.max ?? 5000);
    }
    await heartbeat();
  }

  /** Processes records key by key; a record whose processing failed retriably maps to undefined. */
  private async processAll(topic: string, partition: number, messages: KafkaMessage[], processor: RecordProcessor) {
    const outcomes = new Map<string, RecordOutcome | undefined>();
    const chains = groupByKey(messages).map((chain) => async () => {
      for (const message of chain) {
        const position = { topic, partition, offset: message.offset };
        const started = performance.now();
        try {
          const outcome = await processor(message, position);
          outcomes.set(message.offset, outcome);
          this.options.onOutcome?.(outcome, position, performance.now() - started);
        } catch (error) {
          if (!(error instanceof RetriableError)) {
            this.options.log.error({ err: error, ...position }, 'record processor failed unexpectedly; dead-lettering the record');
            outcomes.set(message.offset, { outbound: this.options.deadLetter(message, position, error), outcome: 'DEAD_LETTER' });
            continue;
          }
          this.options.log.warn({ err: error.message, ...position }, 'retriable failure');
          outcomes.set(message.offset, undefined);
          return; // later records of this key wait, to keep per-key order
        }
      }
    });
    await runLimited(chains, this.options.concurrency);
    return outcomes;
  }

  private async send(outbound: Outbound[]): Promise<void> {
    await this.options.sender.send(outbound);
  }
}
