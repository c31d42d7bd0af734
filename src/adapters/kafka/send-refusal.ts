// Which Kafka failures refuse one message for good. The client marks each protocol error retriable or not,
// but that is the wrong question for a send: UNKNOWN_TOPIC_OR_PARTITION is "retriable" (the topic may be
// created), while a broker that is away or a leader that moves must be waited for. The sender therefore
// asks the cluster's metadata whether a topic exists before sending to it, and treats only the errors
// below as the message's own fault.

/** Protocol errors of a topic lookup that say the topic can never be written by this service. */
const TOPIC_REFUSALS: ReadonlySet<string> = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_AUTHORIZATION_FAILED', 'INVALID_TOPIC_EXCEPTION']);

/** Protocol errors of a produce request that no retry of the same message can cure. */
const SEND_REFUSALS: ReadonlySet<string> = new Set(['TOPIC_AUTHORIZATION_FAILED', 'INVALID_TOPIC_EXCEPTION', 'MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD']);

interface ErrorShape {
  canRetry?: unknown;
  apiId?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * The protocol error id (e.g. MESSAGE_TOO_LARGE) of a client error, looked for along its causes and inside
 * aggregate errors (a produce spanning brokers fails with one error per broker): the first found.
 */
export function kafkaErrorType(error: unknown, depth = 0): string | undefined {
  const shape = error as ErrorShape | undefined;
  if (!shape || typeof shape !== 'object' || depth > 8) return undefined;
  if (typeof shape.apiId === 'string') return shape.apiId;
  // The client's metadata answers UNKNOWN_TOPIC_OR_PARTITION with a user error of its own that drops the
  // protocol error (clients/base/base.js): recognised by its text (test/integration/outbound-sender.test.ts).
  if (shape.code === 'PLT_KFK_USER' && typeof shape.message === 'string' && shape.message.startsWith('Unknown topic ')) return 'UNKNOWN_TOPIC_OR_PARTITION';
  if (Array.isArray(shape.errors)) {
    for (const inner of shape.errors) {
      const type = kafkaErrorType(inner, depth + 1);
      if (type !== undefined) return type;
    }
  }
  return kafkaErrorType(shape.cause, depth + 1);
}

export const isTopicRefusal = (error: unknown): boolean => TOPIC_REFUSALS.has(kafkaErrorType(error) ?? '');

export const isSendRefusal = (error: unknown): boolean => SEND_REFUSALS.has(kafkaErrorType(error) ?? '');

/**
 * A failure of the cluster rather than of what was sent: the client marks it retriable (a broker away, a
 * leader or coordinator moving, a request timed out), here or in a cause or an aggregated error.
 */
export function isClusterFailure(error: unknown, depth = 0): boolean {
  const shape = error as ErrorShape | undefined;
  if (!shape || typeof shape !== 'object' || depth > 8) return false;
  if (shape.canRetry === true || shape.code === 'PLT_KFK_NETWORK' || shape.code === 'PLT_KFK_TIMEOUT') return true;
  if (Array.isArray(shape.errors) && shape.errors.some((inner) => isClusterFailure(inner, depth + 1))) return true;
  return isClusterFailure(shape.cause, depth + 1);
}
