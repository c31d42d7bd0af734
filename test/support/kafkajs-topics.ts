import type { Admin, ITopicConfig } from 'kafkajs';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates topics with a kafkajs admin (for what the service's own admin does not set: per-topic configs) and
 * waits until each partition has a leader. kafkajs's `waitForLeaders` retries LEADER_NOT_AVAILABLE only, while
 * KRaft answers UNKNOWN_TOPIC_OR_PARTITION for a topic just created for a moment: every error is waited out
 * here, on fresh metadata, for at most `timeoutMs`.
 */
export async function createTopicsWithLeaders(admin: Admin, topics: ITopicConfig[], timeoutMs = 30_000): Promise<void> {
  await admin.createTopics({ topics });
  const names = topics.map((t) => t.topic);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const led = await admin
      .fetchTopicMetadata({ topics: names })
      .then(({ topics: found }) => found.length === names.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
      .catch(() => false);
    if (led) return;
    if (Date.now() > deadline) throw new Error(`topics ${names.join(', ')} without a leader for every partition after ${timeoutMs} ms`);
    await sleep(100);
  }
}
