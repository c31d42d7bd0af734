import type { Admin } from 'kafkajs';
import { createKafka, ensureTopics, type KafkaConnection } from './kafka';

/**
 * One admin session: connected for `work`, disconnected after it whatever happens. The admin is handed
 * only to this folder's functions (provisioning, topic creation), never used by the caller itself.
 */
export async function withAdmin<T>(connection: KafkaConnection, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = createKafka(connection).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/** Creates the topics that do not exist yet (see ensureTopics); returns the ones it created. */
export const ensureTopicsExist = (connection: KafkaConnection, topics: string[], partitions: number, replicationFactor: number): Promise<string[]> =>
  withAdmin(connection, (admin) => ensureTopics(admin, topics, partitions, replicationFactor));
