import type { BatchConsumer, BatchContext, Outbound, OutboundSender } from '../../../src/contract/transport';
import pino from 'pino';
import { RetriableError } from '../../../src/contract/errors';
import { BatchWorker, type HeldPartition, type RecordProcessor } from '../../../src/pipeline/batch-worker';
import { withJitter } from '../../../src/shared/retry';

/**
 * The BatchWorker's commit rules over a fake consumer and sender (no Kafka): offsets are committed
 * only after the batch's messages were acknowledged, at most once per interval, by a timer when no
 * batch comes, and always before the worker leaves the group.
 */
type Event = string;

class FakeKafka {
  readonly events: Event[] = [];
  eachBatch?: (payload: BatchContext) => Promise<void>;
  private resolved = new Map<number, string>();
  private committed = new Map<number, string>();
  /** Lets a test hold the producer's acknowledgement. */
  sendGate: Promise<void> = Promise.resolve();
  /** Topics Kafka refuses for good, with the reason. */
  refusedTopics = new Map<string, string>();
  readonly sent: Outbound[] = [];
  /** The partition went to another member (kafkajs's isStale). */
  stale = false;
  heartbeats = 0;

  consumer = {
    run: async ({ eachBatch }: { eachBatch: (payload: BatchContext) => Promise<void> }) => {
      this.eachBatch = eachBatch;
    },
    pause: (topics: { topic: string; partitions?: number[] }[]) => this.events.push(topics[0]?.partitions ? `pause ${topics[0].partitions.join(',')}` : 'pause'),
    resume: (topics: { topic: string; partitions: number[] }[]) => this.events.push(`resume ${topics[0].partitions.join(',')}`),
    disconnect: async () => {
      this.events.push('disconnect');
    },
  } as unknown as BatchConsumer;

  sender: OutboundSender = {
    send: async (messages) => {
      await this.sendGate;
      this.events.push(`send ${messages.length}`);
      const refused = messages.filter((m) => this.refusedTopics.has(m.topic)).map((message) => ({ message, reason: this.refusedTopics.get(message.topic)! }));
      this.sent.push(...messages.filter((m) => !this.refusedTopics.has(m.topic)));
      return refused;
    },
  };

  /** The reply topic each record asks for, by offset. */
  replyTopicOf: (offset: string) => string = () => 'replies';

  /** The next offset kafkajs would fetch of a partition: after the last one resolved. */
  next(partition: number): string | undefined {
    return this.resolved.get(partition);
  }

  payload(partition: number, offsets: string[], keyOf: (offset: string) => string = (offset) => `k${offset}`): BatchContext {
    const messages = offsets.map((offset) => ({ offset, key: Buffer.from(keyOf(offset)), value: Buffer.from(this.replyTopicOf(offset)), headers: {}, timestamp: '0' }));
    const uncommittedOffsets = () => ({
      topics: [...this.resolved].filter(([p, offset]) => this.committed.get(p) !== offset).map(([p, offset]) => ({ topic: 'commands', partitions: [{ partition: p, offset }] })),
    });
    return {
      batch: { topic: 'commands', partition, messages },
      resolveOffset: (offset: string) => this.resolved.set(partition, String(BigInt(offset) + 1n)),
      uncommittedOffsets,
      commitOffsetsIfNecessary: async (offsets?: { topics: { partitions: { partition: number; offset: string }[] }[] }) => {
        for (const t of offsets?.topics ?? []) for (const p of t.partitions) this.committed.set(p.partition, p.offset);
        this.events.push(`commit ${(offsets?.topics ?? []).flatMap((t) => t.partitions.map((p) => `${p.partition}@${p.offset}`)).join(',')}`);
      },
      heartbeat: async () => void this.heartbeats++,
      isRunning: () => true,
      isStale: () => this.stale,
    } as unknown as BatchContext;
  }
}

/** Replies to the topic the record's value names (as X-Reply-Topic would). */
const echo: RecordProcessor = async (message) => ({ outbound: [{ topic: message.value!.toString(), key: message.key, value: message.value, headers: {} }], outcome: 'Success' });

async function startWorker(
  kafka: FakeKafka,
  commitIntervalMs: number,
  processor = echo,
  onHold?: (held: HeldPartition, released: boolean) => void,
  sliceRecords = 100,
  replicated?: () => Promise<void>,
): Promise<BatchWorker> {
  const worker = new BatchWorker({
    consumer: kafka.consumer,
    sender: kafka.sender,
    processors: new Map([['commands', processor]]),
    concurrency: 4,
    sliceRecords,
    partitionsConsumedConcurrently: 2,
    log: pino({ level: 'silent' }),
    deadLetter: () => [],
    undeliverable: (refused, _record, position, reason) => ({ topic: 'dlq', key: refused.key, value: refused.value, headers: { reason, target: refused.topic, source: position.offset } }),
    commitIntervalMs,
    retryBackoffMs: { initial: 100, max: 400 },
    onHold,
    ...(replicated ? { replicated } : {}),
  });
  await worker.run();
  return worker;
}

describe('BatchWorker commits', () => {
  afterEach(() => jest.useRealTimers());

  it('with interval 0 commits after every batch, and only after its replies were acknowledged', async () => {
    const kafka = new FakeKafka();
    await startWorker(kafka, 0);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1']));
    await kafka.eachBatch!(kafka.payload(0, ['2']));
    expect(kafka.events).toEqual(['send 2', 'commit 0@2', 'send 1', 'commit 0@3']);
  });

  it('waits for the replicas once per slice, before its outputs are sent; a wait that fails sends and commits nothing', async () => {
    const kafka = new FakeKafka();
    let refuse = false;
    const replicated = async () => {
      kafka.events.push('wait');
      if (refuse) throw new RetriableError('Redis WAIT: 1 of 1 primaries had fewer than 1 replica(s) acknowledge within 500 ms');
    };
    await startWorker(kafka, 0, echo, undefined, 2, replicated);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2']));
    expect(kafka.events).toEqual(['wait', 'send 2', 'commit 0@2', 'wait', 'send 1', 'commit 0@3']);
    refuse = true;
    await expect(kafka.eachBatch!(kafka.payload(0, ['3']))).rejects.toThrow('Redis WAIT');
    expect(kafka.events.slice(6)).toEqual(['wait']);
  });

  it('commits at most once per interval; a timer commits what the last batches resolved', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const kafka = new FakeKafka();
    await startWorker(kafka, 200);
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    await kafka.eachBatch!(kafka.payload(1, ['0', '1']));
    await kafka.eachBatch!(kafka.payload(0, ['1']));
    expect(kafka.events).toEqual(['send 1', 'commit 0@1', 'send 2', 'send 1']);
    await jest.advanceTimersByTimeAsync(199);
    expect(kafka.events).toHaveLength(4);
    await jest.advanceTimersByTimeAsync(1);
    expect(kafka.events.slice(4)).toEqual(['commit 0@2,1@2']);
    // Nothing new resolved: the next timer has nothing to commit.
    await jest.advanceTimersByTimeAsync(1000);
    expect(kafka.events).toHaveLength(5);
  });

  it('on stop stops fetching, lets the batch in flight finish, commits it and only then leaves the group', async () => {
    const kafka = new FakeKafka();
    const worker = await startWorker(kafka, 60_000);
    await kafka.eachBatch!(kafka.payload(0, ['0'])); // commits at once: the first commit is due
    let acknowledge!: () => void;
    kafka.sendGate = new Promise((resolve) => (acknowledge = resolve));
    const inFlight = kafka.eachBatch!(kafka.payload(0, ['1', '2']));
    const stopped = worker.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(kafka.events).toEqual(['send 1', 'commit 0@1', 'pause']);
    acknowledge();
    await Promise.all([inFlight, stopped]);
    expect(kafka.events).toEqual(['send 1', 'commit 0@1', 'pause', 'send 2', 'commit 0@3', 'disconnect']);
  });

  it('on stop after the consumer stopped for good (pause throws), still commits and leaves', async () => {
    const kafka = new FakeKafka();
    const worker = await startWorker(kafka, 60_000);
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    await kafka.eachBatch!(kafka.payload(0, ['1'])); // resolved, not committed yet
    (kafka.consumer as unknown as { pause: () => void }).pause = () => {
      throw new Error('Consumer group was not initialized, consumer#run must be called first');
    };
    await worker.stop();
    expect(kafka.events).toEqual(['send 1', 'commit 0@1', 'send 1', 'commit 0@2', 'disconnect']);
  });

  it('does not process batches handed over after stop began', async () => {
    const kafka = new FakeKafka();
    const worker = await startWorker(kafka, 0);
    await worker.stop();
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    expect(kafka.events).toEqual(['pause', 'disconnect']);
  });

  it('dead-letters an output Kafka refuses for good, sends the others and commits the whole batch', async () => {
    const kafka = new FakeKafka();
    kafka.refusedTopics.set('does.not.exist', 'UNKNOWN_TOPIC_OR_PARTITION: topic does.not.exist cannot be written');
    kafka.replyTopicOf = (offset) => (offset === '1' ? 'does.not.exist' : 'replies');
    await startWorker(kafka, 0);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2']));
    expect(kafka.events).toEqual(['send 3', 'send 1', 'commit 0@3']);
    expect(kafka.sent.map((m) => [m.topic, m.key?.toString()])).toEqual([
      ['replies', 'k0'],
      ['replies', 'k2'],
      ['dlq', 'k1'],
    ]);
    expect(kafka.sent[2].headers).toEqual({ reason: 'UNKNOWN_TOPIC_OR_PARTITION: topic does.not.exist cannot be written', target: 'does.not.exist', source: '1' });
  });

  it('stops working a batch whose partition was lost: no further record begun, nothing sent, nothing committed', async () => {
    const kafka = new FakeKafka();
    const processed: string[] = [];
    await startWorker(kafka, 0, async (message, position) => {
      processed.push(position.offset);
      kafka.stale = true; // the partition is reassigned while the first record is handled
      return echo(message, position);
    });
    // one key: one chain, records one after another
    const payload = kafka.payload(0, ['0', '1', '2']);
    for (const m of payload.batch.messages) (m as { key: Buffer }).key = Buffer.from('same');
    await kafka.eachBatch!(payload);
    expect(processed).toEqual(['0']);
    expect(kafka.events).toEqual([]);
  });

  it('heartbeats while a record waits (on a slow Redis), so the member is not expelled meanwhile', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    let answer!: () => void;
    await startWorker(kafka, 0, async (message, position) => {
      await new Promise<void>((resolve) => (answer = resolve));
      return echo(message, position);
    });
    const batch = kafka.eachBatch!(kafka.payload(0, ['0']));
    await jest.advanceTimersByTimeAsync(5000);
    expect(kafka.heartbeats).toBe(5);
    answer();
    await batch;
    expect(kafka.events).toEqual(['send 1', 'commit 0@1']);
  });
});

describe('BatchWorker holding a partition behind a record that failed retriably', () => {
  afterEach(() => jest.useRealTimers());

  it('commits what came before it, pauses only its partition, returns, and resumes it after a backoff', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    const failing = new Set(['2']);
    const processed: string[] = [];
    const holds: string[] = [];
    await startWorker(
      kafka,
      0,
      async (message, position) => {
        processed.push(`${position.partition}@${position.offset}`);
        if (position.partition === 0 && failing.has(position.offset)) throw new RetriableError('activation refused');
        return echo(message, position);
      },
      (held, released) => holds.push(`${released ? 'released' : 'held'} ${held.partition}@${held.offset} attempt ${held.attempts}`),
    );
    // one key: records one after another, so 3 is not begun once 2 failed
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2', '3'], () => 'same'));
    expect(kafka.events).toEqual(['send 2', 'commit 0@2', 'pause 0']);
    expect(processed).toEqual(['0@0', '0@1', '0@2']);
    // the batch returned: the other partitions' batches run meanwhile
    await kafka.eachBatch!(kafka.payload(1, ['0']));
    expect(kafka.events.slice(3)).toEqual(['send 1', 'commit 1@1']);
    await jest.advanceTimersByTimeAsync(100); // the first backoff: 50-100 ms
    expect(kafka.events.slice(5)).toEqual(['resume 0']);
    // fetched again from the held record; it fails again: held again, with a longer backoff
    await kafka.eachBatch!(kafka.payload(0, ['2', '3'], () => 'same'));
    expect(kafka.events.slice(6)).toEqual(['pause 0']);
    await jest.advanceTimersByTimeAsync(99);
    expect(kafka.events.slice(7)).toEqual([]); // the second backoff is 100-200 ms
    await jest.advanceTimersByTimeAsync(101);
    expect(kafka.events.slice(7)).toEqual(['resume 0']);
    failing.clear();
    await kafka.eachBatch!(kafka.payload(0, ['2', '3'], () => 'same'));
    // the held record is a slice of its own: answered and committed before anything behind it is begun
    expect(kafka.events.slice(8)).toEqual(['send 1', 'commit 0@3', 'send 1', 'commit 0@4']);
    expect(holds).toEqual(['held 0@2 attempt 1', 'held 0@2 attempt 2', 'released 0@2 attempt 2']);
    expect(kafka.sent.map((m) => m.key?.toString())).toEqual(['same', 'same', 'k0', 'same', 'same']);
  });

  it('records of other keys done after the held one are not handled again when the partition is fetched again', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    let refuse = true;
    const processed: string[] = [];
    await startWorker(kafka, 0, async (message, position) => {
      processed.push(position.offset);
      if (position.offset === '1' && refuse) throw new RetriableError('redis away');
      return echo(message, position);
    });
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2'])); // three keys: begun together
    expect(kafka.next(0)).toBe('1');
    refuse = false;
    await jest.advanceTimersByTimeAsync(100);
    await kafka.eachBatch!(kafka.payload(0, ['1', '2', '3']));
    expect(processed).toEqual(['0', '1', '2', '1', '3']);
    expect(kafka.next(0)).toBe('4');
    expect(kafka.sent.map((m) => m.key?.toString())).toEqual(['k0', 'k2', 'k1', 'k3']);
  });

  it('while held, only the held record is tried: nothing behind it in its partition is begun', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    const processed: string[] = [];
    await startWorker(kafka, 0, async (message, position) => {
      processed.push(position.offset);
      if (position.offset === '0') throw new RetriableError('activation refused');
      return echo(message, position);
    });
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    await jest.advanceTimersByTimeAsync(100);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2'])); // records of other keys arrived behind it
    expect(processed).toEqual(['0', '0']);
    expect(kafka.sent).toEqual([]);
    expect(kafka.next(0)).toBeUndefined();
  });

  it('a resume that lands while kafkajs restarts its crashed consumer (no group: resume throws) neither throws nor stops the worker', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    let refuse = true;
    const processed: string[] = [];
    await startWorker(kafka, 0, async (message, position) => {
      processed.push(position.offset);
      if (refuse) throw new RetriableError('broker away');
      return echo(message, position);
    });
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    expect(kafka.events).toEqual(['pause 0']);
    // kafkajs's resume() between its stop() and the restart's run: "Consumer group was not initialized"
    (kafka.consumer as unknown as { resume: () => void }).resume = () => {
      throw new Error('Consumer group was not initialized, consumer#run must be called first');
    };
    await jest.advanceTimersByTimeAsync(100); // the resume timer fires and must not throw
    // the restarted consumer has a new group, nothing paused: it fetches the partition from its committed offset
    refuse = false;
    await kafka.eachBatch!(kafka.payload(0, ['0', '1']));
    expect(processed).toEqual(['0', '0', '1']);
    expect(kafka.events).toEqual(['pause 0', 'send 1', 'commit 0@1', 'send 1', 'commit 0@2']);
  });

  it('on stop resumes nothing: the held partition stays paused while the worker leaves', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    const worker = await startWorker(kafka, 0, async () => {
      throw new RetriableError('redis away');
    });
    await kafka.eachBatch!(kafka.payload(0, ['0']));
    expect(worker.heldPartitions).toBe(1);
    await worker.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(kafka.events).toEqual(['pause 0', 'pause', 'disconnect']);
  });
});

describe('BatchWorker handling a large batch in slices', () => {
  afterEach(() => jest.useRealTimers());

  /** Records every record begun among the consumer's events, failing retriably the offsets in `refused`. */
  const logging =
    (kafka: FakeKafka, refused: string[] = []): RecordProcessor =>
    async (message, position) => {
      kafka.events.push(`process ${position.offset}`);
      if (refused.includes(position.offset)) throw new RetriableError('redis away');
      return echo(message, position);
    };

  it('sends, resolves and commits each slice before the next one is begun', async () => {
    const kafka = new FakeKafka();
    await startWorker(kafka, 0, logging(kafka), undefined, 2);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2', '3', '4']));
    expect(kafka.events).toEqual(['process 0', 'process 1', 'send 2', 'commit 0@2', 'process 2', 'process 3', 'send 2', 'commit 0@4', 'process 4', 'send 1', 'commit 0@5']);
  });

  it('a record held in a slice: the slices before it stay committed, none after it is begun', async () => {
    jest.useFakeTimers();
    const kafka = new FakeKafka();
    await startWorker(kafka, 0, logging(kafka, ['3']), undefined, 2);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2', '3', '4', '5']));
    expect(kafka.events).toEqual(['process 0', 'process 1', 'send 2', 'commit 0@2', 'process 2', 'process 3', 'send 1', 'commit 0@3', 'pause 0']);
    expect(kafka.next(0)).toBe('3');
  });

  it('walks a batch once to resolve its done records, not once per slice', async () => {
    const kafka = new FakeKafka();
    await startWorker(kafka, 0, echo, undefined, 10);
    const records = 20_000;
    const payload = kafka.payload(
      0,
      Array.from({ length: records }, (_, i) => String(i)),
    );
    let reads = 0;
    const messages = new Proxy(payload.batch.messages, {
      get: (target, property, receiver) => {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver);
      },
    });
    await kafka.eachBatch!({ ...payload, batch: { ...payload.batch, messages } });
    expect(kafka.next(0)).toBe(String(records));
    expect(kafka.sent).toHaveLength(records);
    // Reading the batch to slice it and walking its done prefix once: a few reads per record. One walk per
    // slice from the start was records² / (2 × slice) = 20 million.
    expect(reads).toBeLessThan(4 * records);
  });

  it('a partition lost between slices: what was sent stays committed, nothing further is begun or sent', async () => {
    const kafka = new FakeKafka();
    const send = kafka.sender.send.bind(kafka.sender);
    kafka.sender = {
      send: async (messages) => {
        const refused = await send(messages);
        kafka.stale = true; // the rebalance lands while the first slice is acknowledged
        return refused;
      },
    };
    await startWorker(kafka, 0, logging(kafka), undefined, 2);
    await kafka.eachBatch!(kafka.payload(0, ['0', '1', '2', '3']));
    expect(kafka.events).toEqual(['process 0', 'process 1', 'send 2', 'commit 0@2']);
    expect(kafka.sent).toHaveLength(2);
  });
});

describe('withJitter', () => {
  it('waits between half the backoff and all of it, spread by the random draw', () => {
    expect([withJitter(1000, () => 0), withJitter(1000, () => 0.5), withJitter(1000, () => 0.999999)]).toEqual([500, 750, 1000]);
    const draws = Array.from({ length: 200 }, () => withJitter(400));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...draws)).toBeLessThanOrEqual(400);
    expect(new Set(draws).size).toBeGreaterThan(10); // not one value for every worker
  });
});
