import type { BatchConsumer, BatchContext, InboundRecord, Outbound, OutboundSender } from '../../../src/contract/transport';
import pino from 'pino';
import { BatchWorker, type RecordProcessor } from '../../../src/pipeline/batch-worker';
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
    pause: () => this.events.push('pause'),
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

  payload(partition: number, offsets: string[]): BatchContext {
    const messages = offsets.map((offset) => ({ offset, key: Buffer.from(`k${offset}`), value: Buffer.from(this.replyTopicOf(offset)), headers: {}, timestamp: '0' }) as unknown as InboundRecord);
    const uncommittedOffsets = () => ({
      topics: [...this.resolved]
        .filter(([p, offset]) => this.committed.get(p) !== offset)
        .map(([p, offset]) => ({ topic: 'commands', partitions: [{ partition: p, offset }] })),
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

async function startWorker(kafka: FakeKafka, commitIntervalMs: number, processor = echo): Promise<BatchWorker> {
  const worker = new BatchWorker({
    consumer: kafka.consumer,
    sender: kafka.sender,
    processors: new Map([['commands', processor]]),
    concurrency: 4,
    partitionsConsumedConcurrently: 2,
    log: pino({ level: 'silent' }),
    deadLetter: () => [],
    undeliverable: (refused, _record, position, reason) => ({ topic: 'dlq', key: refused.key, value: refused.value, headers: { reason, target: refused.topic, source: position.offset } }),
    commitIntervalMs,
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
    expect(kafka.sent.map((m) => [m.topic, m.key?.toString()])).toEqual([['replies', 'k0'], ['replies', 'k2'], ['dlq', 'k1']]);
    expect(kafka.sent[2]!.headers).toEqual({ reason: 'UNKNOWN_TOPIC_OR_PARTITION: topic does.not.exist cannot be written', target: 'does.not.exist', source: '1' });
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

describe('withJitter', () => {
  it('waits between half the backoff and all of it, spread by the random draw', () => {
    expect([withJitter(1000, () => 0), withJitter(1000, () => 0.5), withJitter(1000, () => 0.999999)]).toEqual([500, 750, 1000]);
    const draws = Array.from({ length: 200 }, () => withJitter(400));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...draws)).toBeLessThanOrEqual(400);
    expect(new Set(draws).size).toBeGreaterThan(10); // not one value for every worker
  });
});
