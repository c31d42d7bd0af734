import type { Outbound, OutboundSender } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { createPartitionedSender, partitionCounts } from './partitioned-sender';
import { createProducer, partitionsReader, produceCall } from './producer';

/** A producer for programs that send a message at a time (the client library, the NP simulator). */
export interface RecordProducer {
  /** Resolves once all in-sync replicas acknowledged the message; rejects when Kafka refused it or is away. */
  send(message: Outbound): Promise<void>;
  disconnect(): Promise<void>;
}

interface Queued {
  message: Outbound;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One sender call for the sends of one turn of the event loop; each caller learns its own message's fate. */
export function coalescing(sender: OutboundSender): (message: Outbound) => Promise<void> {
  let queue: Queued[] = [];
  const flush = () => {
    const queued = queue;
    queue = [];
    sender.send(queued.map((q) => q.message)).then(
      (refused) => {
        const reasons = new Map(refused.map((r) => [r.message, r.reason]));
        for (const { message, resolve, reject } of queued) {
          const reason = reasons.get(message);
          if (reason === undefined) resolve();
          else reject(new Error(`Kafka refused the message to ${message.topic}: ${reason}`));
        }
      },
      (error: unknown) => queued.forEach((q) => q.reject(error)),
    );
  };
  return (message) =>
    new Promise((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ message, resolve, reject });
    });
}

/**
 * `ordered`: one request in flight, so a retry never puts a later send of the same partition first (see
 * producer.ts); its sends go one at a time, each on its own partition. Otherwise the sends of one turn of
 * the event loop go out together through the service's own sender (partitioned-sender.ts): one call
 * spanning their partitions on a producer that does not retry, else one call per partition.
 */
export async function connectRecordProducer(connection: KafkaConnection, options: { ordered: boolean; batched: boolean }): Promise<RecordProducer> {
  const producer = createProducer(connection, { ordered: options.ordered });
  // Not for `ordered`: a failed spanning call sent again the safe way could land after a later call's messages.
  const spanning = options.ordered || !options.batched ? undefined : createProducer(connection, { ordered: false, once: true });
  const sender = createPartitionedSender(produceCall(producer), partitionCounts(partitionsReader(producer)), spanning && produceCall(spanning));
  const alone = async (message: Outbound) => {
    const [refused] = await sender.send([message]);
    if (refused) throw new Error(`Kafka refused the message to ${message.topic}: ${refused.reason}`);
  };
  const send = options.batched ? coalescing(sender) : alone;
  return {
    send,
    disconnect: async () => {
      await Promise.allSettled([producer.close(), spanning?.close()]);
    },
  };
}
