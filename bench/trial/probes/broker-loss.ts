import { startKafkaCluster } from '../../../dev/stack';
import type { TrialClientName } from '../trial-clients';
import { clientsFromArgs, connectProbeTransport, probeId, probeSettings, report, setupClient, sleep } from './support';

/**
 * Probe (b): a broker lost in a cluster of three. A topic of 4 partitions (replication factor 3, min ISR 2);
 * each client's sender writes one numbered record every 20 ms (acks=all, a batch at a time as the service
 * does) while its group member reads them; after 5 s the node leading partition 0 — and, on these three
 * nodes, coordinating some groups — is killed (SIGKILL). Measured: send calls that failed, the longest gap
 * between two acknowledged sends and between two consumed records (the recovery), and records acknowledged
 * but never consumed within 30 s (must be 0).
 */
const SEND_EVERY_MS = 20;
const BEFORE_KILL_MS = 5_000;
const AFTER_KILL_MS = 25_000;

async function probe(client: TrialClientName, cluster: Awaited<ReturnType<typeof startKafkaCluster>>): Promise<void> {
  const topic = probeId('loss');
  const setup = await setupClient(cluster.brokers);
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: 4, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
  await sleep(2_000); // a topic just created on three loaded brokers: its metadata settles first, for every client alike
  const transport = await connectProbeTransport(client, probeSettings(probeId('loss-group'), { sessionTimeoutMs: 10_000 }), { brokers: cluster.brokers });
  await transport.consumer.subscribe([topic]);
  const consumed = new Set<string>();
  let lastConsumed = 0;
  let consumeGap = 0;
  await transport.consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 4,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      const now = Date.now();
      if (lastConsumed && consumed.size > 0) consumeGap = Math.max(consumeGap, now - lastConsumed);
      lastConsumed = now;
      for (const message of batch.messages) {
        consumed.add(message.value!.toString());
        resolveOffset(message.offset);
      }
      await commitOffsetsIfNecessary(uncommittedOffsets()).catch(() => undefined);
    },
  });
  const acked = new Set<string>();
  let failures = 0;
  let lastAck = Date.now();
  let ackGap = 0;
  let killedAt = 0;
  const began = Date.now();
  for (let i = 0; Date.now() - began < BEFORE_KILL_MS + AFTER_KILL_MS; i++) {
    if (!killedAt && Date.now() - began > BEFORE_KILL_MS) {
      const { topics } = await setup.admin.fetchTopicMetadata({ topics: [topic] });
      const leader = topics[0]!.partitions.find((p) => p.partitionId === 0)!.leader;
      await cluster.node(leader).kill();
      killedAt = Date.now();
    }
    const value = `${i}`;
    try {
      await transport.sender.send([{ topic, partition: i % 4, key: null, value: Buffer.from(value), headers: {} }]);
      acked.add(value);
      ackGap = Math.max(ackGap, Date.now() - lastAck);
      lastAck = Date.now();
    } catch {
      failures++;
    }
    await sleep(SEND_EVERY_MS);
  }
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && [...acked].some((v) => !consumed.has(v))) await sleep(200);
  report('broker-loss', client, {
    acknowledged: acked.size,
    failedSends: failures,
    longestAckGapMs: ackGap,
    longestConsumeGapMs: consumeGap,
    acknowledgedNeverConsumed: [...acked].filter((v) => !consumed.has(v)).length,
  });
  await transport.consumer.disconnect().catch(() => undefined);
  await transport.close().catch(() => undefined);
  await setup.close();
}

async function main(): Promise<void> {
  for (const client of clientsFromArgs()) {
    // a fresh cluster per client: each starts with three brokers
    const cluster = await startKafkaCluster({ brokers: 3, readyTimeoutMs: 240_000 });
    try {
      await probe(client, cluster).catch((error) => report('broker-loss', client, { failed: (error as Error).message }));
    } finally {
      await cluster.stop();
    }
  }
  process.exit(0);
}

void main();
