import pino from 'pino';
import type { BatchConsumer, BatchContext, OutboundSender } from '../src/contract/transport';
import { BatchWorker } from '../src/pipeline/batch-worker';

/**
 * `npm run bench:batch`: what the batch loop (src/pipeline/batch-worker.ts) itself costs to handle one
 * fetched batch of many records — slicing, per-key chains, outcomes, resolving and committing — with a
 * processor that does nothing and a sender that acknowledges at once (no Kafka, no Redis). A partner can
 * put hundreds of thousands of records in one batch (a gzip batch of 150,000 empty records is 210 KB), so
 * the loop's cost must grow with the records, not with their square. CPU and wall time per batch, three
 * batches after a warm-up; a few seconds in all. BENCH_BATCH_RECORDS (150,000) and BENCH_SLICE_RECORDS
 * (256, BATCH_SLICE_RECORDS's default) set its size.
 */
const RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 150_000);
const SLICE = Number(process.env.BENCH_SLICE_RECORDS ?? 256);
const RUNS = 3;

async function main(): Promise<void> {
  let eachBatch!: (payload: BatchContext) => Promise<void>;
  const consumer = {
    run: async (options: { eachBatch: typeof eachBatch }) => void (eachBatch = options.eachBatch),
    pause: () => undefined,
    resume: () => undefined,
    disconnect: async () => undefined,
  } as unknown as BatchConsumer;
  const sender: OutboundSender = { send: async () => [] };
  const worker = new BatchWorker({
    consumer,
    sender,
    processors: new Map([['commands', async () => ({ outbound: [], outcome: 'Success', correlationId: 'c' })]]),
    concurrency: 64,
    sliceRecords: SLICE,
    partitionsConsumedConcurrently: 1,
    log: pino({ level: 'silent' }),
    deadLetter: () => [],
    undeliverable: () => {
      throw new Error('nothing is refused here');
    },
    commitIntervalMs: 1000,
  });
  await worker.run();
  const batchOf = (records: number): BatchContext => {
    const messages = Array.from({ length: records }, (_, i) => ({ offset: String(i), key: null, value: null, headers: {}, timestamp: '0' }));
    let resolved = '';
    return {
      batch: { topic: 'commands', partition: 0, messages },
      resolveOffset: (offset: string) => void (resolved = offset),
      uncommittedOffsets: () => ({ topics: resolved ? [{ topic: 'commands', partitions: [{ partition: 0, offset: resolved }] }] : [] }),
      commitOffsetsIfNecessary: async () => undefined,
      heartbeat: async () => undefined,
      isRunning: () => true,
      isStale: () => false,
    } as unknown as BatchContext;
  };
  await eachBatch(batchOf(Math.min(RECORDS, 10_000))); // warm-up
  console.log(`| One batch of ${RECORDS.toLocaleString('en')} records, slices of ${SLICE} | CPU ms | wall ms | CPU µs per record |\n|---|---:|---:|---:|`);
  for (let run = 1; run <= RUNS; run++) {
    const payload = batchOf(RECORDS);
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    await eachBatch(payload);
    const wall = performance.now() - began;
    const { user, system } = process.cpuUsage(cpuBefore);
    const cpuMs = (user + system) / 1000;
    console.log(`| run ${run} | ${cpuMs.toFixed(0)} | ${wall.toFixed(0)} | ${((cpuMs * 1000) / RECORDS).toFixed(1)} |`);
  }
  await worker.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
