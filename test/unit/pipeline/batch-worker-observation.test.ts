import { Writable } from 'node:stream';
import { type BatchConsumer, type BatchContext, type InboundRecord, type OutboundSender, type RecordPosition } from '../../../src/contract/transport';
import pino from 'pino';
import { RetriableError } from '../../../src/contract/errors';
import { BatchWorker, type RecordOutcome, type RecordProcessor } from '../../../src/pipeline/batch-worker';
import { positionalCorrelationId } from '../../../src/pipeline/envelope';
import { HEADER } from '../../../src/contract/headers';

/** What the worker reports per record (onOutcome) and logs, through fakes of the consumer and producer. */
const TOPIC = 'cmds';

function message(offset: number, key: string, correlationId?: string): InboundRecord {
  const headers: Record<string, Buffer> = correlationId ? { [HEADER.correlationId]: Buffer.from(correlationId) } : {};
  return {
    key: Buffer.from(key),
    value: Buffer.from(`v${offset}`),
    offset: String(offset),
    timestamp: String(1_700_000_000_000 + offset),
    headers,
  };
}

function harness(processor: RecordProcessor) {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  let eachBatch!: (payload: BatchContext) => Promise<void>;
  let resumed: (() => void) | undefined;
  const consumer = {
    run: async (options: { eachBatch: typeof eachBatch }) => void (eachBatch = options.eachBatch),
    pause: () => undefined,
    resume: () => resumed?.(),
  } as unknown as BatchConsumer;
  const sent: string[] = [];
  const sender: OutboundSender = { send: async (messages) => (messages.forEach((m) => sent.push(m.topic)), []) };
  const outcomes: { outcome: RecordOutcome; position: RecordPosition; message: InboundRecord }[] = [];
  const worker = new BatchWorker({
    consumer,
    sender,
    processors: new Map([[TOPIC, processor]]),
    concurrency: 4,
    sliceRecords: 100,
    partitionsConsumedConcurrently: 1,
    log,
    deadLetter: () => [{ topic: 'dlq', key: null, value: null, headers: {} }],
    undeliverable: (refused) => refused,
    onOutcome: (outcome, position, _ms, record) => outcomes.push({ outcome, position, message: record }),
    retryBackoffMs: { initial: 1, max: 1 },
  });
  /** As kafkajs: a held partition is fetched again, from its first record not resolved, once resumed (three fetches at most). */
  const runBatch = async (messages: InboundRecord[]) => {
    await worker.run();
    let next = 0;
    for (let fetch = 0; fetch < 3 && next < messages.length; fetch++) {
      const held = new Promise<void>((resolve) => (resumed = resolve));
      await eachBatch({
        batch: { topic: TOPIC, partition: 0, messages: messages.filter((m) => Number(m.offset) >= next) },
        resolveOffset: (offset: string) => void (next = Number(offset) + 1),
        heartbeat: async () => undefined,
        commitOffsetsIfNecessary: async () => undefined,
        uncommittedOffsets: () => ({ topics: [] }),
        isRunning: () => true,
        isStale: () => false,
      } as unknown as BatchContext);
      if (next < messages.length) await held;
    }
  };
  return { runBatch, outcomes, lines, sent };
}

describe('BatchWorker observation', () => {
  it('reports every record with its message, a dead-lettered one included, and a correlation id on each', async () => {
    const { runBatch, outcomes, sent } = harness(async (m) => {
      if (m.offset === '1') throw new Error('bug');
      if (m.offset === '2') return { outbound: [], outcome: 'Applied', operation: 'PortConfirmed' }; // not a command: no correlation id of its own
      return { outbound: [{ topic: 'replies', key: null, value: null, headers: {} }], outcome: 'Success', operation: 'X', correlationId: 'c-0' };
    });
    await runBatch([message(0, 'a', 'c-0'), message(1, 'b', 'c-1'), message(2, 'c')]);
    const byOffset = Object.fromEntries(outcomes.map((o) => [o.position.offset, o]));
    expect(Object.keys(byOffset).sort()).toEqual(['0', '1', '2']);
    expect(byOffset['0'].outcome).toMatchObject({ outcome: 'Success', correlationId: 'c-0' });
    expect(byOffset['1'].outcome).toMatchObject({ outcome: 'DEAD_LETTER', correlationId: 'c-1' });
    expect(byOffset['2'].outcome).toMatchObject({ outcome: 'Applied', correlationId: positionalCorrelationId({ topic: TOPIC, partition: 0, offset: '2' }) });
    expect(byOffset['1'].message.timestamp).toBe('1700000000001');
    expect(sent.sort()).toEqual(['dlq', 'replies']);
  });

  it("logs its failure and retry lines for a record with that record's correlation id, and reports nothing until it is processed", async () => {
    let failures = 0;
    const { runBatch, outcomes, lines } = harness(async (m) => {
      if (m.offset === '0' && failures++ < 1) throw new RetriableError('redis away');
      if (m.offset === '1') throw new TypeError('boom');
      return { outbound: [], outcome: 'Success', correlationId: 'c-0' };
    });
    await runBatch([message(0, 'a', 'c-0'), message(1, 'b', 'c-1')]);
    const recordLines = lines.filter((l) => l.offset !== undefined);
    expect(recordLines.map((l) => [l.msg, l.correlationId])).toEqual(
      expect.arrayContaining([
        ['retriable failure', 'c-0'],
        ['record processor failed unexpectedly; dead-lettering the record', 'c-1'],
      ]),
    );
    expect(outcomes.map((o) => [o.position.offset, o.outcome.outcome]).sort()).toEqual([
      ['0', 'Success'],
      ['1', 'DEAD_LETTER'],
    ]);
  });
});
