import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { TrialClientName } from '../trial-clients';
import { clientsFromArgs, connectProbeTransport, probeId, probeSettings, report, setupClient, sleep } from './support';

/**
 * Probe (e): how long a restarted member waits for its partitions. A member (a child process) of a group
 * on 4 partitions, session timeout 10 s, records arriving on every partition every 50 ms; once it has
 * records of all four it is killed with SIGKILL and started again at once. With static membership
 * (group.instance.id, KIP-345: the candidates) the new process takes the old member's place and its
 * partitions without a rebalance; without it (kafkajs has none) the group waits for the dead member's
 * session to time out. Measured: ms from the new process's spawn to its first record, and to records of
 * all four partitions, and the process's own start-up (spawn to connected) for scale.
 */
const PARTITIONS = 4;
const SESSION_TIMEOUT_MS = 10_000;

async function member(client: TrialClientName, topic: string, groupId: string, instanceId: string): Promise<void> {
  const transport = await connectProbeTransport(client, probeSettings(groupId, { sessionTimeoutMs: SESSION_TIMEOUT_MS }), instanceId === '-' ? {} : { groupInstanceId: instanceId });
  process.stdout.write('connected\n');
  await transport.consumer.subscribe([topic]);
  const seen = new Set<number>();
  await transport.consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: PARTITIONS,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      if (!seen.has(batch.partition)) {
        seen.add(batch.partition);
        process.stdout.write(`partition ${batch.partition}\n`);
      }
      for (const message of batch.messages) resolveOffset(message.offset);
      await commitOffsetsIfNecessary(uncommittedOffsets());
    },
  });
}

function startMember(client: TrialClientName, topic: string, groupId: string, instanceId: string): { child: ChildProcess; events: Map<string, number>; spawnedAt: number } {
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [...process.execArgv, __filename, 'member', client, topic, groupId, instanceId], { stdio: ['ignore', 'pipe', 'ignore'], env: process.env });
  const events = new Map<string, number>();
  createInterface({ input: child.stdout! }).on('line', (line) => events.set(line, Date.now()));
  return { child, events, spawnedAt };
}

async function waitFor(events: Map<string, number>, count: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ([...events.keys()].filter((k) => k.startsWith('partition')).length >= count) return true;
    await sleep(20);
  }
  return false;
}

async function probe(client: TrialClientName): Promise<void> {
  const topic = probeId('rejoin');
  const groupId = probeId('rejoin-group');
  const staticMember = client !== 'kafkajs';
  const instanceId = staticMember ? probeId('instance') : '-';
  const setup = await setupClient();
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
  const producer = setup.kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  let producing = true;
  const feeding = (async () => {
    for (let i = 0; producing; i++) {
      await producer.send({ topic, acks: 1, messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `r${i}` })) });
      await sleep(50);
    }
  })();
  const first = startMember(client, topic, groupId, instanceId);
  const joined = await waitFor(first.events, PARTITIONS, 60_000);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const second = startMember(client, topic, groupId, instanceId);
  const back = await waitFor(second.events, PARTITIONS, 60_000);
  const since = (name: string) => (second.events.has(name) ? second.events.get(name)! - second.spawnedAt : undefined);
  const partitionTimes = [...second.events].filter(([k]) => k.startsWith('partition')).map(([, at]) => at - second.spawnedAt);
  report('restart-rejoin', client, {
    staticMembership: staticMember,
    firstMemberJoinedMs: first.events.has('partition 0') || joined ? Math.min(...[...first.events].filter(([k]) => k.startsWith('partition')).map(([, at]) => at - first.spawnedAt)) : undefined,
    restartConnectedMs: since('connected'),
    restartFirstRecordMs: partitionTimes.length ? Math.min(...partitionTimes) : undefined,
    restartAllPartitionsMs: back ? Math.max(...partitionTimes) : undefined,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
  });
  second.child.kill('SIGKILL');
  producing = false;
  await feeding;
  await producer.disconnect();
  await setup.admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await setup.close();
}

async function main(): Promise<void> {
  if (process.argv[2] === 'member') return member(process.argv[3] as TrialClientName, process.argv[4]!, process.argv[5]!, process.argv[6]!);
  for (const client of clientsFromArgs()) await probe(client).catch((error) => report('restart-rejoin', client, { failed: (error as Error).message }));
  process.exit(0);
}

void main();
