import { Admin } from '@platformatic/kafka';

/**
 * What a starting cluster's metadata says, asked over a short-lived quiet admin client (short timeouts,
 * one retry): for the dev stack, which waits for its brokers with these (dev/stack/kafka).
 */
const OFFSETS_TOPIC = '__consumer_offsets';

async function withQuietAdmin<T>(brokers: readonly string[], use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Admin({
    clientId: 'stack-readiness',
    bootstrapBrokers: [...brokers],
    connectTimeout: 1000,
    requestTimeout: 5000,
    retries: 1,
    retryDelay: 100,
  });
  try {
    return await use(admin);
  } finally {
    await admin.close();
  }
}

/** The brokers the metadata of the broker asked lists, by node id. */
const listedNodes = async (admin: Admin): Promise<number[]> => [...(await admin.metadata({ topics: [], forceUpdate: true })).brokers.keys()];

/**
 * Every partition of the offsets topic has a leader (true when the topic does not exist yet). The client
 * leaves internal topics out of its metadata, but fails the call when a partition has no leader
 * (LEADER_NOT_AVAILABLE): the call succeeding is the answer.
 */
async function offsetsTopicLed(admin: Admin): Promise<boolean> {
  const topics = await admin.listTopics({ includeInternals: true });
  if (!topics.includes(OFFSETS_TOPIC)) return true;
  return admin.metadata({ topics: [OFFSETS_TOPIC], forceUpdate: true, retries: 0 }).then(
    () => true,
    () => false,
  );
}

/** The broker at `address` lists broker `nodeId` and the offsets topic, when it exists, has a leader for every partition. */
export const brokerListsNode = (address: string, nodeId: number): Promise<boolean> =>
  withQuietAdmin([address], async (admin) => (await listedNodes(admin)).includes(nodeId) && (await offsetsTopicLed(admin)));

/**
 * The cluster lists `nodeCount` brokers and its offsets topic exists with a leader for every partition.
 * Looking up a group's coordinator makes the broker create the offsets topic.
 */
export const clusterServesGroups = (brokers: readonly string[], nodeCount: number): Promise<boolean> =>
  withQuietAdmin(brokers, async (admin) => {
    if ((await listedNodes(admin)).length < nodeCount) return false;
    await admin.describeGroups({ groups: ['stack-readiness-probe'] });
    const topics = await admin.listTopics({ includeInternals: true });
    return topics.includes(OFFSETS_TOPIC) && (await offsetsTopicLed(admin));
  });
