import { Consumer, FetchIsolationLevels } from '@platformatic/kafka';
import { clientOptions, type KafkaConnection } from './connection';
import { kafkaErrorType } from './send-refusal';

/**
 * An idle fetch is held by the broker for up to this long (the client's default is 5 s). Closing a stream
 * waits for its fetch in flight, so the record-by-record consumers of this folder (the client library,
 * the NP simulator, the CLI) long-poll for half a second and close in about that.
 */
export const FETCH_MAX_WAIT_MS = 500;

/**
 * A @platformatic/kafka consumer of group `groupId` with the folder's connection options, committing only
 * what its owner commits (autocommit off). The client emits 'error' when it could not rejoin its group
 * after a heartbeat said so; without a listener that would throw out of the event loop, so it is logged
 * here and the owner's stream tells what happens next. It reads read_committed (the client's default,
 * said here because the exactly-once guarantee rests on it): a record of a transaction not committed yet is
 * handed out once it commits, one of an aborted transaction never.
 */
export function createGroupConsumer(
  connection: KafkaConnection,
  groupId: string,
  // groupInstanceId, static membership: a restarted owner with the same id takes its member's place at once
  { suffix, ...group }: { suffix?: string; groupInstanceId?: string; sessionTimeout?: number; heartbeatInterval?: number; metadataMaxAge?: number } = {},
): Consumer {
  const consumer = new Consumer({
    ...clientOptions(connection, suffix),
    groupId,
    autocommit: false,
    maxWaitTime: FETCH_MAX_WAIT_MS,
    isolationLevel: FetchIsolationLevels.READ_COMMITTED,
    ...group,
  });
  consumer.on('error', (error: Error) => connection.log.warn({ err: error, groupId, type: kafkaErrorType(error) }, 'Kafka consumer could not rejoin its group'));
  return consumer;
}

/** Closes a consumer, its streams first; a group that cannot be left (the cluster gone) is logged, not thrown. */
export async function closeGroupConsumer(consumer: Consumer, connection: Pick<KafkaConnection, 'log'>): Promise<void> {
  try {
    await consumer.close(true);
  } catch (error) {
    connection.log.warn({ err: error, groupId: consumer.groupId }, 'Kafka consumer closed without leaving its group');
  }
}

const FATAL = new Set(['GROUP_AUTHORIZATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED', 'SASL_AUTHENTICATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

/** A failure consuming again cannot outlive: the cluster refuses this principal the group, the topic or itself. */
export const isFatalConsumerError = (error: unknown): boolean => FATAL.has(kafkaErrorType(error) ?? '');
