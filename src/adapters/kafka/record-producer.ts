import type { Outbound, OutboundSender } from '../../contract/transport';
import { createKafka, createProducer, type KafkaConnection } from './kafka';
import { createPartitionedSender, partitionCounts } from './partitioned-sender';

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
 * createProducer). `batched`: the sends of one turn of the event loop go out together through the
 * service's own sender (partitioned-sender.ts): one call spanning their partitions on a producer that does
 * not retry, else one call per partition — never kafkajs's retry of a call spanning partitions, which can
 * resolve with messages unwritten when a broker dies (the caller then waited for a reply that could not come).
 */
export async function connectRecordProducer(connection: KafkaConnection, options: { ordered: boolean; batched: boolean }): Promise<RecordProducer> {
  const kafka = createKafka(connection);
  const producer = createProducer(kafka, { ordered: options.ordered });
  if (!options.batched) {
    await producer.connect();
    return {
      send: async ({ topic, partition, key, value, headers }) => void (await producer.send({ topic, acks: -1, messages: [{ partition, key, value, headers }] })),
      disconnect: () => producer.disconnect(),
    };
  }
  // Not for `ordered`: a failed spanning call sent again the safe way could land after a later call's messages.
  const spanning = options.ordered ? undefined : createProducer(kafka, { ordered: false, once: true });
  const metadata = kafka.admin();
  const disconnect = async () => {
    await Promise.allSettled([producer.disconnect(), spanning?.disconnect(), metadata.disconnect()]);
  };
  try {
    await Promise.all([producer.connect(), spanning?.connect(), metadata.connect()]);
  } catch (error) {
    await disconnect(); // the ones that did connect would otherwise stay open
    throw error;
  }
  return { send: coalescing(createPartitionedSender(producer, partitionCounts(metadata), spanning)), disconnect };
}
