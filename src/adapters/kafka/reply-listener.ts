import { ListOffsetTimestamps, type Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { closeGroupConsumer, createGroupConsumer, isFatalConsumerError } from './group-consumer';
import { inbound } from './inbound-record';

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

type Position = { topic: string; partition: number; offset: bigint };

/** How long a failed stream waits before it is consumed again (a broker away, a rejoin refused). */
const RESTART_DELAY_MS = 1000;

const key = (topic: string, partition: number) => `${topic}/${partition}`;

export class ReplyListener {
  /** Next offset to read per topic/partition: every partition of the reply topics, kept across streams. */
  private readonly positions = new Map<string, Position>();
  private stream?: MessagesStream<Buffer, Buffer, Buffer, Buffer>;
  private stopped = false;
  private restartTimer?: NodeJS.Timeout;

  private constructor(
    private readonly connection: KafkaConnection,
    private readonly consumer: Consumer,
    private readonly options: ReplyListenerOptions,
  ) {}

  static async start(connection: KafkaConnection, options: ReplyListenerOptions): Promise<ReplyListener> {
    const listener = new ReplyListener(connection, createGroupConsumer(connection, options.groupId, undefined, options.groupInstanceId), options);
    try {
      const latest = await listener.consumer.listOffsets({ topics: options.topics, timestamp: ListOffsetTimestamps.LATEST });
      for (const [topic, offsets] of latest) offsets.forEach((offset, partition) => listener.positions.set(key(topic, partition), { topic, partition, offset }));
      await listener.consume();
      return listener;
    } catch (error) {
      await listener.stop();
      throw error;
    }
  }

  private async consume(): Promise<void> {
    const stream = await this.consumer.consume({
      topics: this.options.topics,
      mode: 'manual',
      offsets: [...this.positions.values()],
      autocommit: false, // a group of its own that always starts from where it stopped: nothing worth committing
    });
    this.stream = stream;
    stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => {
      this.positions.set(key(message.topic, message.partition), { topic: message.topic, partition: message.partition, offset: message.offset + 1n });
      this.options.onMessage(inbound(message), message.topic);
    });
    stream.on('error', (error: Error) => {
      if (this.stopped) return;
      if (isFatalConsumerError(error)) {
        this.connection.log.error({ err: error, groupId: this.options.groupId }, 'reply stream refused for good; no more replies are read');
        return;
      }
      this.connection.log.warn({ err: error, groupId: this.options.groupId }, 'reply stream failed; consuming again from where it stopped');
      this.restartSoon();
    });
  }

  private restartSoon(): void {
    if (this.stopped || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      const failed = this.stream;
      this.stream = undefined;
      void (failed?.close() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => (this.stopped ? undefined : this.consume()))
        .catch((error: unknown) => {
          if (isFatalConsumerError(error)) {
            this.connection.log.error({ err: error, groupId: this.options.groupId }, 'reply stream refused for good; no more replies are read');
            return;
          }
          this.connection.log.warn({ err: error, groupId: this.options.groupId }, 'reply stream could not be consumed again; retrying');
          this.restartSoon();
        });
    }, RESTART_DELAY_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await closeGroupConsumer(this.consumer, this.connection);
  }
}
