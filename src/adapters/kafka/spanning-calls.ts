import { isSendRefusal } from './send-refusal';

/** A message on its way to one partition of a topic, as a produce call takes it. */
export interface WireMessage {
  topic: string;
  partition: number;
  key: Buffer | string | null;
  value: Buffer | null;
  headers: Record<string, string | Buffer>;
}

/** One produce call (acks = all): resolves once every message was acknowledged, rejects otherwise. */
export type ProduceCall = (messages: WireMessage[]) => Promise<void>;

/** One topic-partition's messages of a send, in order, with their size on the wire. */
export interface PartitionRun {
  /** `<partition>:<topic>` */
  key: string;
  topic: string;
  messages: WireMessage[];
  bytes: number;
}

interface Caller {
  runs: PartitionRun[];
  settle: (failure: { error: unknown } | undefined) => void;
}

/**
 * Callers into produce calls, in their order: a caller joins the current call unless one of its partitions
 * would pass `maxPartitionBytes` there (the client makes one record batch of a call's messages for a
 * partition, and the broker refuses a batch over its limit).
 */
export function packCalls<T extends { runs: PartitionRun[] }>(callers: T[], maxPartitionBytes: number): T[][] {
  const calls: T[][] = [];
  let current: T[] = [];
  let bytes = new Map<string, number>();
  for (const caller of callers) {
    const fits = caller.runs.every((run) => (bytes.get(run.key) ?? 0) + run.bytes <= maxPartitionBytes);
    if (!fits && current.length > 0) {
      calls.push(current);
      current = [];
      bytes = new Map();
    }
    current.push(caller);
    for (const run of caller.runs) bytes.set(run.key, (bytes.get(run.key) ?? 0) + run.bytes);
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

/**
 * After a failed call, none is made for this long: the callers send their own way (a broker is away or a
 * leader moves). Short, because the other way is slow where it matters: on three brokers one call per
 * topic-partition answered about 270 calls/s against 1,300 (test/faults/client-broker-loss.test.ts); a call
 * to a broker that died fails at once, so trying again soon costs little.
 */
export const SAFE_AFTER_FAILURE_MS = 2_000;

/**
 * Merges the sends made in one turn of the event loop into as few produce calls as the batch limit
 * allows. The batches of one fetch get their Redis answers together (one auto-pipelined reply), so their
 * sends come together too, and one produce request per broker then carries all of them instead of one
 * each. The producer must not retry (producer.ts's `once`): a retried call spanning partitions is sent
 * to one leader only (partitioned-sender.ts). A caller learns whether the call that carried
 * its messages was acknowledged as a whole; after a failed call each of its callers sends again its own
 * way, one partition per call, and so does everyone for SAFE_AFTER_FAILURE_MS.
 */
export class SpanningCalls {
  private pending: Caller[] = [];
  private safeUntil = 0;

  constructor(
    private readonly produce: ProduceCall,
    private readonly maxPartitionBytes: number,
  ) {}

  /** True once Kafka acknowledged every message of `runs`; false when they must be sent another way. */
  async trySend(runs: PartitionRun[]): Promise<boolean> {
    if (Date.now() < this.safeUntil) return false;
    try {
      await this.send(runs);
      return true;
    } catch (error) {
      if (!isSendRefusal(error)) this.safeUntil = Date.now() + SAFE_AFTER_FAILURE_MS; // a refusal is one message's fault, not the cluster's
      return false;
    }
  }

  private send(runs: PartitionRun[]): Promise<void> {
    return new Promise((resolve, reject) => {
      // setImmediate, not a microtask: it runs after every continuation of the I/O just read has run
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ runs, settle: (failure) => (failure ? reject(failure.error) : resolve()) });
    });
  }

  private flush(): void {
    const callers = this.pending;
    this.pending = [];
    for (const call of packCalls(callers, this.maxPartitionBytes)) {
      this.produce(call.flatMap(({ runs }) => runs.flatMap((run) => run.messages))).then(
        () => call.forEach((caller) => caller.settle(undefined)),
        (error: unknown) => call.forEach((caller) => caller.settle({ error })),
      );
    }
  }
}
