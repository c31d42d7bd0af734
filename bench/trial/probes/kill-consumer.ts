import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrialClientName } from '../trial-clients';
import { clientsFromArgs, connectProbeTransport, probeId, probeSettings, produceNumbered, report, setupClient, sleep } from './support';

/**
 * Probe (a): SIGKILL of a consumer in the middle of a batch. A member (a child process) handles 2 × 1,500
 * records, 2 ms each, writing every handled offset to a file before resolving it and committing after each
 * batch; it is killed with SIGKILL once 700 are handled, and a new member of the same group started.
 * Measured: the offsets committed at the kill, where each partition started again (must be its committed
 * offset: redelivery from the last commit), records never handled (must be 0) and handled twice.
 */
const PER_PARTITION = 1_500;
const KILL_AFTER = 700;

/** The member: `kill-consumer.ts member <client> <topic> <group> <file>`. */
async function member(client: TrialClientName, topic: string, groupId: string, file: string): Promise<void> {
  const transport = await connectProbeTransport(client, probeSettings(groupId));
  await transport.consumer.subscribe([topic]);
  await transport.consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      for (const message of batch.messages) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        appendFileSync(file, `${batch.partition}:${message.offset}\n`);
        resolveOffset(message.offset);
      }
      await commitOffsetsIfNecessary(uncommittedOffsets());
    },
  });
}

const handled = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

async function probe(client: TrialClientName): Promise<void> {
  const topic = probeId('kill');
  const groupId = probeId('kill-group');
  const setup = await setupClient();
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
  await produceNumbered(setup.kafka, topic, 2, PER_PARTITION);
  const first = join(tmpdir(), `${topic}-first.txt`);
  const second = join(tmpdir(), `${topic}-second.txt`);
  writeFileSync(first, '');
  writeFileSync(second, '');
  const start = (file: string) => spawn(process.execPath, [...process.execArgv, __filename, 'member', client, topic, groupId, file], { stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  const one = start(first);
  const began = Date.now();
  while (handled(first).length < KILL_AFTER && Date.now() - began < 90_000) await sleep(20);
  one.kill('SIGKILL');
  await new Promise((resolve) => one.once('exit', resolve));
  const before = handled(first);
  const committed = await setup.admin.fetchOffsets({ groupId, topics: [topic] });
  const committedAt = Object.fromEntries(committed[0]!.partitions.map((p) => [p.partition, p.offset]));
  const restarted = Date.now();
  const two = start(second);
  while (new Set([...before, ...handled(second)]).size < 2 * PER_PARTITION && Date.now() - restarted < 90_000) await sleep(50);
  const resumedAfterMs = Date.now() - restarted;
  two.kill('SIGKILL');
  const after = handled(second);
  const firstAfter: Record<number, string | undefined> = {};
  for (const line of after) {
    const [partition, offset] = line.split(':') as [string, string];
    firstAfter[Number(partition)] ??= offset;
  }
  const all = [...before, ...after];
  const distinct = new Set(all);
  report('kill-consumer', client, {
    handledBeforeKill: before.length,
    committedAtKill: committedAt,
    restartedFrom: firstAfter,
    // -1: nothing committed yet, so the partition starts again from its first offset, 0
    redeliveredFromCommitted: [0, 1].every((p) => firstAfter[p] === undefined || firstAfter[p] === (committedAt[p] === '-1' ? '0' : committedAt[p])),
    lost: 2 * PER_PARTITION - distinct.size,
    handledTwice: all.length - distinct.size,
    secondMemberDoneInMs: resumedAfterMs,
  });
  await setup.admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await setup.close();
}

async function main(): Promise<void> {
  if (process.argv[2] === 'member') return member(process.argv[3] as TrialClientName, process.argv[4]!, process.argv[5]!, process.argv[6]!);
  for (const client of clientsFromArgs()) await probe(client).catch((error) => report('kill-consumer', client, { failed: (error as Error).message }));
  process.exit(0);
}

void main();
