import { Admin, ConfigResourceTypes } from '@platformatic/kafka';
import type { Outbound } from '../../contract/transport';
import type { Logger } from '../../contract/log';
import { clientOptions, type KafkaConnection } from './connection';
import { kafkaErrorType } from './send-refusal';

// What a topic's size limit means for a transaction. Kafka ends a transaction by writing a commit or abort
// marker (a record batch of its own) into every partition the transaction wrote, and its coordinator treats a
// marker the partition refuses as fatal (RecordTooLargeException, TransactionMarkerRequestCompletionHandler):
// the transaction never completes and its transactional id answers CONCURRENT_TRANSACTIONS for ever. So a
// message to a topic whose max.message.bytes cannot hold a marker must never enter a transaction, and one
// the topic cannot hold is refused before, rather than found by a send that leaves a transaction to abort.

/**
 * The smallest max.message.bytes a transaction may write to: a marker's batch is 78 bytes (a 61-byte batch
 * header and one control record), with room for a later marker version.
 */
export const MARKER_BATCH_FLOOR = 128;

/** A record batch's header (61 bytes), and a record's own fields at their smallest (7 one-byte varints). */
const RECORD_BATCH_HEADER = 61;
const RECORD_FIELDS_AT_LEAST = 7;

const byteLength = (value: string | Buffer): number => (Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value));

/** The fewest bytes a batch holding only this message can take (no compression on the service's producers). */
export function leastBatchBytes(message: Outbound): number {
  let bytes = RECORD_BATCH_HEADER + RECORD_FIELDS_AT_LEAST + (message.key === null ? 0 : byteLength(message.key)) + (message.value?.length ?? 0);
  for (const name in message.headers) bytes += 2 + Buffer.byteLength(name) + byteLength(message.headers[name]);
  return bytes;
}

/** A topic's max.message.bytes, or undefined when it cannot be read (then nothing is refused for it). */
export type TopicSizeLimit = (topic: string) => Promise<number | undefined>;

/**
 * Why `message` can never be written to its topic in a transaction, given the topic's limit: the topic cannot
 * hold a transaction's marker, or the message alone is above the limit. The reason names MESSAGE_TOO_LARGE, as
 * the broker's own refusal would. Undefined when it may fit (the broker still has the last word).
 */
export function sizeRefusal(message: Outbound, limit: number | undefined): string | undefined {
  if (limit === undefined) return undefined;
  if (limit < MARKER_BATCH_FLOOR) {
    return `MESSAGE_TOO_LARGE: topic ${message.topic} takes record batches of at most ${limit} bytes (max.message.bytes), too few for a transaction's marker (${MARKER_BATCH_FLOOR})`;
  }
  const least = leastBatchBytes(message);
  return least > limit ? `MESSAGE_TOO_LARGE: a record of at least ${least} bytes, above topic ${message.topic}'s max.message.bytes ${limit}` : undefined;
}

/**
 * Reads topics' max.message.bytes with DescribeConfigs, cached `ttlMs` (a topic's limit rarely changes). A
 * topic whose configuration may not be read (no DescribeConfigs grant) or that does not exist has no known
 * limit; the failure is logged once per topic, and a cluster that is away is asked again next time.
 */
export function topicSizeLimits(connection: KafkaConnection, log: Logger, ttlMs = 60_000): { limitOf: TopicSizeLimit; close(): Promise<void> } {
  const admin = new Admin(clientOptions(connection));
  const known = new Map<string, { limit: number | undefined; at: number }>();
  const warned = new Set<string>();
  const read = async (topic: string): Promise<number | undefined> => {
    const [description] = await admin.describeConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configurationKeys: ['max.message.bytes'] }],
    });
    const value = description?.configs.find((config) => config.name === 'max.message.bytes')?.value;
    return value === undefined || value === null ? undefined : Number(value);
  };
  return {
    async limitOf(topic) {
      const cached = known.get(topic);
      if (cached && Date.now() - cached.at < ttlMs) return cached.limit;
      try {
        const limit = await read(topic);
        known.set(topic, { limit, at: Date.now() });
        return limit;
      } catch (error) {
        const type = kafkaErrorType(error);
        if (type === undefined) return undefined; // the cluster is away: the transaction itself will say so
        known.set(topic, { limit: undefined, at: Date.now() });
        if (!warned.has(topic)) {
          warned.add(topic);
          log.warn({ topic, err: type }, "a topic's max.message.bytes could not be read; its replies are sent in transactions unchecked (grant DescribeConfigs: docs/security.md)");
        }
        return undefined;
      }
    },
    close: () => admin.close(),
  };
}
