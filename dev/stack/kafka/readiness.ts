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

export interface NodeReadiness {
  /** The node's own PLAINTEXT address first, then running peers that must list it as well. */
  readonly addresses: readonly string[];
  readonly nodeId: number;
  readonly timeoutMs: number;
  /** More ports that must accept connections (the SASL listener). */
  readonly extraPorts?: readonly number[];
}

/**
 * One node is ready: its port accepts connections, the cluster metadata served by it and by every running
 * peer lists it (registered and unfenced), and the offsets topic, when it exists, has a leader for every
 * partition (so after a restart the first consumer finds its group coordinator).
 */
export async function waitForKafkaNode(process: SupervisedProcess, readiness: NodeReadiness): Promise<void> {
  const { addresses, nodeId, timeoutMs, extraPorts = [] } = readiness;
  const own = addresses[0]!;
  for (const port of [Number(own.split(':')[1]), ...extraPorts]) {
    await waitUntil(async () => ((await isPortOpen(port)) ? true : undefined), { what: `listening on port ${port}`, timeoutMs, process });
  }
  for (const address of addresses) {
    await waitUntil(
      () =>
        withAdmin([address], async (admin) => {
          const { brokers } = await admin.describeCluster();
          if (!brokers.some((b) => b.nodeId === nodeId)) return undefined;
          return (await offsetsTopicLed(admin)) ? true : undefined;
        }),
      { what: `listed as broker ${nodeId} by ${address}`, timeoutMs, process, intervalMs: 300 },
    );
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
