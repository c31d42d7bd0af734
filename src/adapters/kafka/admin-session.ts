import { Admin } from '@platformatic/kafka';
import { clientOptions, type KafkaConnection } from './connection';
import { explainKafkaError } from './kafka-error';
import { ensureTopics } from './topics';

export type { Admin } from '@platformatic/kafka';

/**
 * One admin session: a client for `work`, closed after it whatever happens. The admin is handed only to
 * this folder's functions (provisioning, topic creation), never used by the caller itself. A failure is
 * thrown with its reasons in its message (the broker's refusal, a failed authentication), as an operator
 * reads them in a log line or on the CLI.
 */
export async function withAdmin<T>(connection: KafkaConnection, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Admin(clientOptions(connection));
  try {
    return await work(admin);
  } catch (error) {
    throw explainKafkaError(error);
  } finally {
    await admin.close();
  }
}

/** Creates the topics that do not exist yet (see topics.ts); returns the ones it created. */
export const ensureTopicsExist = (connection: KafkaConnection, topics: string[], partitions: number, replicationFactor: number): Promise<string[]> =>
  withAdmin(connection, (admin) => ensureTopics(admin, topics, partitions, replicationFactor));
