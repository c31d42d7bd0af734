/**
 * Which Kafka failures refuse one message for good. kafkajs marks each protocol error `retriable` or not,
 * but that is the wrong question for a send: it treats UNKNOWN_TOPIC_OR_PARTITION as retriable (and retries
 * a send to a topic that does not exist until the consumer gives up), while a broker that is away or a
 * leader that moves must be waited for. The sender therefore asks the cluster's metadata whether a topic
 * exists before sending to it, and treats only the errors below as the message's own fault.
 */

/** Protocol errors of a topic lookup that say the topic can never be written by this service. */
const TOPIC_REFUSALS: ReadonlySet<string> = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_AUTHORIZATION_FAILED', 'INVALID_TOPIC_EXCEPTION']);

/** Protocol errors of a produce request that no retry of the same message can cure. */
const SEND_REFUSALS: ReadonlySet<string> = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'INVALID_TOPIC_EXCEPTION',
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
]);

/** The protocol error type (e.g. MESSAGE_TOO_LARGE) of a kafkajs error, looked for along its causes. */
export function kafkaErrorType(error: unknown): string | undefined {
  for (let e = error as { type?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (typeof e.type === 'string') return e.type;
  }
  return undefined;
}

export const isTopicRefusal = (error: unknown): boolean => TOPIC_REFUSALS.has(kafkaErrorType(error) ?? '');

export const isSendRefusal = (error: unknown): boolean => SEND_REFUSALS.has(kafkaErrorType(error) ?? '');
