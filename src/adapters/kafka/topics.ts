import { UserError, findErrorBy, type Admin } from '@platformatic/kafka';
import { retry } from '../../shared/retry';
import { brokerErrorNames } from './kafka-error';

/**
 * Creates the topics that do not exist yet; existing topics are left as they are. Returns the ones it
 * found missing. Another program creating one of them at the same moment (TOPIC_ALREADY_EXISTS) is fine.
 */
export async function ensureTopics(admin: Admin, topics: string[], partitions: number, replicationFactor: number): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = [...new Set(topics)].filter((topic) => !existing.has(topic));
  if (missing.length > 0) {
    await admin.createTopics({ topics: missing, partitions, replicas: replicationFactor }).catch((error: unknown) => {
      // The broker creates each topic of the request on its own: only the ones it refused failed.
      const refusals = brokerErrorNames(error);
      if (refusals.length === 0 || refusals.some((name) => name !== 'TOPIC_ALREADY_EXISTS')) throw error;
    });
    await waitForLeaders(admin, missing, partitions);
  }
  return missing;
}

/** Metadata errors a broker answers for a topic it has not heard of yet, right after its creation. */
const NOT_YET = ['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE'];

/**
 * @platformatic/kafka's metadata call turns UNKNOWN_TOPIC_OR_PARTITION into a UserError "Unknown topic
 * <name>." without the broker's error below it: recognised by its wording.
 */
const isUnknownTopic = (error: unknown): boolean => error instanceof UserError && error.message.startsWith('Unknown topic');

/**
 * Waits until every partition of the new topics has a leader. On a multi-broker cluster the broker asked
 * may not know a new topic yet (UNKNOWN_TOPIC_OR_PARTITION) or its partitions may have no leader yet
 * (LEADER_NOT_AVAILABLE) for a moment: both are waited out, on fresh metadata every time.
 */
async function waitForLeaders(admin: Admin, topics: string[], partitions: number, timeoutMs = 30_000): Promise<void> {
  const leaderless = new Error(`topics ${topics.join(', ')} have no leader for every partition after ${timeoutMs} ms`);
  const led = async () => {
    // one retry inside the client: a broker that drops the connection is left for the next one (its retries rotate them)
    const metadata = await admin.metadata({ topics, forceUpdate: true, retries: 1 });
    const everyLed = topics.every((topic) => {
      const found = metadata.topics.get(topic);
      return found !== undefined && found.partitionsCount === partitions && found.partitions.every((p) => p !== undefined && p.leader >= 0);
    });
    if (!everyLed) throw leaderless;
  };
  const notYet = (error: unknown) => error === leaderless || isUnknownTopic(error) || NOT_YET.some((name) => findErrorBy(error as Error, 'apiId', name) !== null);
  await retry(led, { backoff: { initialMs: 100, maxMs: 400 }, timeoutMs, retriable: notYet }).catch((error: unknown) => {
    throw notYet(error) ? leaderless : error;
  });
}
