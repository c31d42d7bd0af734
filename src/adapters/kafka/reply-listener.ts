import { ListOffsetTimestamps } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { createGroupConsumer } from './group-consumer';
import { PartitionStream } from './partition-stream';

/**
 * The requester's side of request/reply: one consumer, in a group of its own, on the reply topics.
 * Replies are read from the END: the high watermark of every partition of the reply topics is read before
 * the stream starts and the stream is given those offsets (@platformatic/kafka's 'latest' mode would read
 * them only once the stream is built, after `consume` returned), so a reply to a command sent once `start`
 * resolved lands at or above them however fast the service answers. The stream keeps its positions across
 * rebalances; if the stream itself fails it is consumed again from where this listener stopped.
 */
export interface ReplyListenerOptions {
  topics: string[];
  groupId: string;
  /** The group's static member id (KIP-345), when the group outlives a restart of its owner. */
  groupInstanceId?: string;
  onMessage: (message: InboundRecord, topic: string) => void;
}

export class ReplyListener {
  private constructor(private readonly stream: PartitionStream) {}

  static async start(connection: KafkaConnection, options: ReplyListenerOptions): Promise<ReplyListener> {
    const consumer = createGroupConsumer(connection, options.groupId, options.groupInstanceId ? { groupInstanceId: options.groupInstanceId } : {});
    const log = connection.log.child({ groupId: options.groupId });
    let latest = new Map<string, bigint[]>();
    const stream: PartitionStream = new PartitionStream({
      consumer,
      log,
      // from where this listener stopped in each partition, else from the end read at the start
      consumeOptions: () => ({
        topics: options.topics,
        mode: 'manual',
        offsets: [...latest].flatMap(([topic, offsets]) => offsets.map((end, partition) => ({ topic, partition, offset: stream.nextOffset(topic, partition) ?? end }))),
        autocommit: false, // a group of its own that always starts from where it stopped: nothing worth committing
      }),
      onBatch: async ({ topic, partition, records }) => {
        for (const record of records) {
          try {
            options.onMessage(record, topic);
          } catch (error) {
            log.error({ err: error, topic, partition, offset: record.offset }, 'a reply could not be handed on; it is skipped');
          }
        }
        return BigInt(records[records.length - 1].offset) + 1n;
      },
      assignedOnly: false,
      onFatal: (error) => log.error({ err: error }, 'reply stream refused for good; no more replies are read'),
    });
    try {
      latest = await consumer.listOffsets({ topics: options.topics, timestamp: ListOffsetTimestamps.LATEST });
      await stream.start(Infinity);
      return new ReplyListener(stream);
    } catch (error) {
      await stream.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.stream.stop();
  }
}
