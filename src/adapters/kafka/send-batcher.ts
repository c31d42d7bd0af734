import type { Message, Producer } from 'kafkajs';

/**
 * Coalesces the sends made in one turn of the event loop into one produce request per flush, so many
 * calls in flight cost a few round trips instead of one each (kafkajs is latency-bound at one await per
 * send). Every caller still learns whether its own message was acknowledged by all in-sync replicas.
 */
interface Queued {
  topic: string;
  message: Message;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SendBatcher {
  private queue: Queued[] = [];
  private scheduled = false;

  constructor(
    private readonly producer: Pick<Producer, 'sendBatch'>,
    private readonly maxMessagesPerRequest = 500,
  ) {}

  send(topic: string, message: Message): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, message, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queued = this.queue;
    this.queue = [];
    for (let start = 0; start < queued.length; start += this.maxMessagesPerRequest) {
      const chunk = queued.slice(start, start + this.maxMessagesPerRequest);
      const byTopic = new Map<string, Message[]>();
      for (const { topic, message } of chunk) {
        const messages = byTopic.get(topic) ?? [];
        messages.push(message);
        byTopic.set(topic, messages);
      }
      this.producer
        .sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
        .then(
          () => chunk.forEach((q) => q.resolve()),
          (error) => chunk.forEach((q) => q.reject(error)),
        );
    }
  }
}
