import { spawn } from 'node:child_process';
import { CompressionTypes } from 'kafkajs';
import type { TrialClientName } from '../trial-clients';
import { gzipBomb, sendBomb, zstdBomb } from '../../../test/faults/support/compression-bombs';
import { clientsFromArgs, connectProbeTransport, peakRssMiB, probeId, probeSettings, report, setupClient, sleep } from './support';

/**
 * Probe (d): a compressed batch whose one record inflates to INFLATED_MB (gzip ≈ 200 KB on the wire, zstd
 * ≈ 7 KB), then a small valid record after it, consumed by a fresh member of each client in a process of
 * its own (its memory is its own), with the client's defaults: nothing of the service's bounded codecs.
 * Measured: what the member got (the inflated record, an error, nothing), whether the record after it came,
 * and the member's peak RSS. Whether a bound can be set through the public API is in the decision document.
 */
const INFLATED_MB = 200;
const WAIT_MS = 45_000;

async function member(client: TrialClientName, topic: string): Promise<void> {
  const rssAtStart = peakRssMiB();
  const outcome: Record<string, unknown> = { kind: topic.includes('zstd') ? 'zstd' : 'gzip' };
  const errors: string[] = [];
  const done = new Promise<void>((resolve) => setTimeout(resolve, WAIT_MS).unref());
  try {
    const transport = await connectProbeTransport(client, probeSettings(probeId('bomb-group'), { maxBytesPerPartition: 1024 * 1024 }));
    transport.consumer.onFatal((error) => errors.push(`fatal: ${error.message}`));
    await transport.consumer.subscribe([topic]);
    await transport.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: async ({ batch, resolveOffset }) => {
        for (const message of batch.messages) {
          if (message.offset === '0') outcome.bombDelivered = `${message.value?.length ?? 0} bytes`;
          else outcome.afterBomb = 'delivered';
          resolveOffset(message.offset);
        }
      },
    });
    process.on('uncaughtException', (error) => errors.push(`uncaught: ${error.message}`));
    const finished = (async () => {
      while (!outcome.afterBomb) await sleep(100);
    })();
    await Promise.race([finished, done]);
  } catch (error) {
    errors.push((error as Error).message);
  }
  process.stdout.write(`${JSON.stringify({ ...outcome, errors: errors.slice(0, 3), peakRssMiB: Math.round(peakRssMiB()), rssAtStartMiB: Math.round(rssAtStart) })}\n`);
  process.exit(0);
}

async function probe(client: TrialClientName, kind: 'gzip' | 'zstd', bomb: Buffer): Promise<void> {
  const topic = probeId(`bomb-${kind}`);
  const setup = await setupClient();
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: String(4 * 1024 * 1024) }] }], waitForLeaders: true });
  const producer = setup.kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await sendBomb(producer, topic, 0, kind === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.ZSTD, bomb);
  await producer.send({ topic, acks: -1, messages: [{ partition: 0, key: 'after', value: 'a valid record after the bomb' }] });
  await producer.disconnect();
  const child = spawn(process.execPath, [...process.execArgv, __filename, 'member', client, topic], { stdio: ['ignore', 'pipe', 'ignore'], env: process.env });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exit = await new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
  const line = out.trim().split('\n').pop();
  let measured: Record<string, unknown>;
  try {
    measured = JSON.parse(line ?? '');
  } catch {
    measured = { kind, memberExit: exit, output: out.slice(-300) };
  }
  report('compression-bomb', client, { inflatedMiB: INFLATED_MB, wireKiB: Math.round(bomb.length / 1024), memberExit: exit, ...measured });
  await setup.admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await setup.close();
}

async function main(): Promise<void> {
  if (process.argv[2] === 'member') return member(process.argv[3] as TrialClientName, process.argv[4]!);
  const bombs = { gzip: await gzipBomb(INFLATED_MB * 1024 * 1024), zstd: zstdBomb(INFLATED_MB * 1024 * 1024) };
  const kinds = (process.env.PROBE_BOMBS ?? 'gzip,zstd').split(',') as ('gzip' | 'zstd')[];
  for (const client of clientsFromArgs()) {
    for (const kind of kinds) await probe(client, kind, bombs[kind]).catch((error) => report('compression-bomb', client, { kind, failed: (error as Error).message }));
  }
  process.exit(0);
}

void main();
