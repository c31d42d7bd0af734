import type { Admin, Consumer } from 'kafkajs';
import type { InboundRecord } from '../../contract/transport';
import { retry } from '../../shared/retry';
import { createKafka, type KafkaConnection } from './kafka';
import { createConsumer } from './closable-consumer';

/**
 * The requester's side of request/reply: one consumer, in a group of its own, on the reply topics.
 * Replies are read from the END, and — because kafkajs resolves "latest" lazily, on its first fetch —
 * every assigned partition is explicitly positioned at its current high watermark before `start`
 * resolves. A reply to a command sent afterwards lands at or above that offset, so none is lost however
 * fast the service answers. After a rebalance, partitions resume where this listener left them.
 */
export interface ReplyListenerOptions {
  topics: string[];
  groupId: string;
  onMessage: (message: InboundRecord, topic: string) => void;
}

const tp = (topic: string, partition: number) => `${topic}/${partition}`;

export class ReplyListener {
  /** Next offset to read per topic/partition, kept across rebalances. */
  private readonly positions = new Map<string, string>();

  private constructor(
    private readonly consumer: Consumer,
    private readonly admin: Admin,
  ) {}

  static async start(connection: KafkaConnection, options: ReplyListenerOptions): Promise<ReplyListener> {
    const kafka = createKafka(connection);
    const consumer = createConsumer(kafka, { groupId: options.groupId, allowAutoTopicCreation: false });
    const admin = kafka.admin();
    const listener = new ReplyListener(consumer, admin);
    try {
      await Promise.all([consumer.connect(), admin.connect()]);
      await consumer.subscribe({ topics: options.topics, fromBeginning: false });
      let positioned!: (error?: unknown) => void;
      const ready = new Promise<void>((resolve, reject) => (positioned = (error) => (error ? reject(error) : resolve())));
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        listener.position(consumer, payload.memberAssignment).then(
          () => positioned(),
          (error) => {
            connection.log.error({ err: error }, 'could not position the reply consumer');
            positioned(error);
          },
        );
      });
      // A consumer that crashes before it is positioned fails the start instead of hanging it.
      consumer.on(consumer.events.CRASH, ({ payload }) => positioned(payload.error));
      await consumer.run({
        autoCommit: false, // a group of its own that always starts from the end: nothing worth committing
        eachMessage: async ({ topic, partition, message }) => {
          listener.positions.set(tp(topic, partition), (BigInt(message.offset) + 1n).toString());
          options.onMessage(message, topic);
        },
      });
      await ready;
      return listener;
    } catch (error) {
      await listener.stop();
      throw error;
    }
  }

  /** Seeks every assigned partition to where this listener stopped, or else to its current high watermark. */
  /**
   * Right after a topic is created a broker may not know it leads a partition yet ("not the leader"):
   * kafkajs's admin does not retry that here, so refresh the metadata and ask again, a few times.
   */
  private highWatermarks(topic: string): Promise<{ partition: number; high: string }[]> {
    return retry(() => this.admin.fetchTopicOffsets(topic), {
      backoff: { initialMs: 200, maxMs: 3200 },
      attempts: 6,
      retriable: (error) => (error as { retriable?: boolean }).retriable === true,
    });
  }

  private async position(consumer: Consumer, assignment: Record<string, number[]>): Promise<void> {
    for (const [topic, partitions] of Object.entries(assignment)) {
      const needWatermark = partitions.some((p) => !this.positions.has(tp(topic, p)));
      const watermarks = needWatermark ? await this.highWatermarks(topic) : [];
      for (const partition of partitions) {
        const offset = this.positions.get(tp(topic, partition)) ?? watermarks.find((w) => w.partition === partition)?.high;
        if (offset === undefined) throw new Error(`no high watermark for ${topic}/${partition}`);
        this.positions.set(tp(topic, partition), offset);
        consumer.seek({ topic, partition, offset });
      }
    }
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.consumer.disconnect(), this.admin.disconnect()]);
  }
}
