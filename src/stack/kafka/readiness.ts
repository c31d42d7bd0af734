import { Kafka, logLevel, type Admin } from 'kafkajs';
import { isPortOpen } from '../net/ports';
import { waitUntil } from '../process/wait';
import type { SupervisedProcess } from '../process/supervisor';

const OFFSETS_TOPIC = '__consumer_offsets';

async function withAdmin<T>(brokers: readonly string[], use: (admin: Admin) => Promise<T>): Promise<T> {
  const kafka = new Kafka({
    clientId: 'stack-readiness',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 1, initialRetryTime: 100 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

/** Every partition of the offsets topic has a leader (true when the topic does not exist yet). */
async function offsetsTopicLed(admin: Admin): Promise<boolean> {
  const topics = await admin.listTopics();
  if (!topics.includes(OFFSETS_TOPIC)) return true;
  const { topics: [metadata] } = await admin.fetchTopicMetadata({ topics: [OFFSETS_TOPIC] });
  return metadata !== undefined && metadata.partitions.length > 0 && metadata.partitions.every((p) => p.leader >= 0);
}

/**
 * One node is ready: its port accepts connections, the cluster metadata it serves lists it (registered and
 * unfenced), and the offsets topic, when it exists, has a leader for every partition (so after a restart
 * the first consumer finds its group coordinator).
 */
export async function waitForKafkaNode(
  process: SupervisedProcess,
  address: string,
  nodeId: number,
  timeoutMs: number,
  extraPorts: readonly number[] = [],
): Promise<void> {
  const port = Number(address.split(':')[1]);
  await waitUntil(async () => ((await isPortOpen(port)) ? true : undefined), { what: `listening on ${address}`, timeoutMs, process });
  await waitUntil(
    () =>
      withAdmin([address], async (admin) => {
        const { brokers } = await admin.describeCluster();
        if (!brokers.some((b) => b.nodeId === nodeId)) return undefined;
        return (await offsetsTopicLed(admin)) ? true : undefined;
      }),
    { what: `registered as broker ${nodeId}`, timeoutMs, process, intervalMs: 300 },
  );
  for (const extra of extraPorts) {
    await waitUntil(async () => ((await isPortOpen(extra)) ? true : undefined), { what: `listening on port ${extra}`, timeoutMs, process });
  }
}

/**
 * The whole cluster is ready: every node is in the metadata and the offsets topic exists with leaders.
 * Looking up a group's coordinator makes the broker create the offsets topic; without this, the first
 * consumer of a test fails with "The group coordinator is not available".
 */
export async function waitForKafkaCluster(brokers: readonly string[], nodeCount: number, timeoutMs: number): Promise<void> {
  await waitUntil(
    () =>
      withAdmin(brokers, async (admin) => {
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length < nodeCount) return undefined;
        await admin.describeGroups(['stack-readiness-probe']);
        const topics = await admin.listTopics();
        return topics.includes(OFFSETS_TOPIC) && (await offsetsTopicLed(admin)) ? true : undefined;
      }),
    { what: `serving ${nodeCount} broker(s) with the offsets topic`, timeoutMs, intervalMs: 300 },
  );
}
