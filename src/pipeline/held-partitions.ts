import type { Logger } from 'pino';
import type { BatchConsumer, InboundRecord } from '../contract/transport';
import { backoffDelayMs } from '../shared/retry';

/**
 * The batch worker's held partitions: a partition paused behind a record that failed retriably (Redis or
 * the registry away), resumed after a jittered backoff that doubles at each attempt on the same record, and
 * released once that record is done. Only the held partition waits; the others go on.
 */
/** A partition paused behind a record that failed retriably. */
export interface HeldPartition {
  topic: string;
  partition: number;
  /** The held record: the first one not done. */
  offset: string;
  /** Records after it already done (handled, outputs acknowledged): skipped when fetched again. */
  done: Set<string>;
  attempts: number;
  /** When the record was first held (ms since the epoch). */
  since: number;
  resume?: NodeJS.Timeout;
}

export interface HeldPartitionsOptions {
  consumer: Pick<BatchConsumer, 'pause' | 'resume'>;
  log: Logger;
  backoffMs: { initial: number; max: number };
  /** A stopping worker resumes nothing. */
  isStopping: () => boolean;
  /** Called when a partition is held and when it is released (for logs and metrics). */
  onHold?: (held: HeldPartition, released: boolean) => void;
}

export class HeldPartitions {
  /** By `topic|partition`. */
  private readonly held = new Map<string, HeldPartition>();

  constructor(private readonly options: HeldPartitionsOptions) {}

  /** Partitions held now. */
  get count(): number {
    return this.held.size;
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Records of a held partition after its held record that are already done (skipped when fetched again). */
  doneAfter(key: string): ReadonlySet<string> | undefined {
    return this.held.get(key)?.done;
  }

  /**
   * Pauses the partition from its first record not done and resumes it after a jittered backoff (longer at
   * each attempt on the same record): the consumer then hands it out again from that record. Meanwhile the
   * batch has returned, so every other partition goes on.
   */
  hold(key: string, topic: string, partition: number, rest: InboundRecord[], isDone: (m: InboundRecord) => boolean): void {
    const previous = this.held.get(key);
    clearTimeout(previous?.resume);
    const again = previous?.offset === rest[0].offset;
    const held: HeldPartition = {
      topic,
      partition,
      offset: rest[0].offset,
      done: new Set(rest.filter(isDone).map((m) => m.offset)),
      attempts: again ? previous.attempts + 1 : 1,
      since: again ? previous.since : Date.now(),
    };
    this.held.set(key, held);
    const { initial, max } = this.options.backoffMs;
    const waitMs = backoffDelayMs({ initialMs: initial, maxMs: max }, held.attempts - 1);
    this.options.consumer.pause([{ topic, partitions: [partition] }]);
    held.resume = setTimeout(() => this.resume(held), waitMs);
    this.options.log.warn(
      { topic, partition, offset: held.offset, attempts: held.attempts, heldForMs: Date.now() - held.since, backoffMs: waitMs },
      'holding the partition after a retriable failure; retrying its record',
    );
    this.options.onHold?.(held, false);
  }

  release(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    clearTimeout(held.resume);
    this.held.delete(key);
    this.options.log.info(
      { topic: held.topic, partition: held.partition, offset: held.offset, attempts: held.attempts, heldForMs: Date.now() - held.since },
      'held record done; the partition flows again',
    );
    this.options.onHold?.(held, true);
  }

  /** The worker stops: no held partition is resumed any more. */
  cancelResumes(): void {
    for (const held of this.held.values()) clearTimeout(held.resume);
  }

  /**
   * Resumes a held partition after its backoff. From a timer, so it must not throw: a consumer may refuse
   * while it restarts (kafkajs's resume() threw then, which ended the worker's process in the fault suite);
   * a restarted consumer fetches the partition from its committed offset, the held record included.
   */
  private resume(held: HeldPartition): void {
    if (this.options.isStopping()) return;
    const { topic, partition } = held;
    try {
      this.options.consumer.resume([{ topic, partitions: [partition] }]);
    } catch (error) {
      this.options.log.warn(
        { topic, partition, offset: held.offset, err: (error as Error)?.message },
        'could not resume the held partition (the consumer is restarting); the restarted consumer fetches it again',
      );
    }
  }
}
