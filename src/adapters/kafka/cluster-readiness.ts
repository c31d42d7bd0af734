import { Kafka, logLevel, type Admin } from 'kafkajs';

/**
 * What a starting cluster's metadata says, asked over a short-lived quiet admin connection (no log lines,
 * short timeouts, one retry): for the dev stack, which waits for its brokers with these (dev/stack/kafka).
 */
const OFFSETS_TOPIC = '__consumer_offsets';

async function withQuietAdmin<T>(brokers: readonly string[], use: (admin: Admin) => Promise<T>): Promise<T> {
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

/** The broker at `address` lists broker `nodeId` and the offsets topic, when it exists, has a leader for every partition. */
export const brokerListsNode = (address: string, nodeId: number): Promise<boolean> =>
  withQuietAdmin([address], async (admin) => {
    const { brokers } = await admin.describeCluster();
    return brokers.some((b) => b.nodeId === nodeId) && (await offsetsTopicLed(admin));
  });

/**
 * The cluster lists `nodeCount` brokers and its offsets topic exists with a leader for every partition.
 * Looking up a group's coordinator makes the broker create the offsets topic.
 */
export const clusterServesGroups = (brokers: readonly string[], nodeCount: number): Promise<boolean> =>
  withQuietAdmin(brokers, async (admin) => {
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length < nodeCount) return false;
    await admin.describeGroups(['stack-readiness-probe']);
    const topics = await admin.listTopics();
    return topics.includes(OFFSETS_TOPIC) && (await offsetsTopicLed(admin));
  });
