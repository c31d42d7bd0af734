import type { Outbound } from '../../contract/transport';
import { createKafka, createProducer, type KafkaConnection } from './kafka';
import { SendBatcher } from './send-batcher';

/** A producer for programs that send a message at a time (the client library, the NP simulator). */
export interface RecordProducer {
  /** Resolves once all in-sync replicas acknowledged the message. */
  send(message: Outbound): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * `ordered`: one request in flight, so a retry never puts a later send of the same partition first (see
 * createProducer). `batched`: the sends of one turn of the event loop go out in one request (SendBatcher),
 * for callers with many sends in flight.
 */
export async function connectRecordProducer(connection: KafkaConnection, options: { ordered: boolean; batched: boolean }): Promise<RecordProducer> {
  const producer = createProducer(createKafka(connection), { ordered: options.ordered });
  await producer.connect();
  const batcher = options.batched ? new SendBatcher(producer) : undefined;
  return {
    send: async ({ topic, partition, key, value, headers }) => {
      const message = { partition, key, value, headers };
      if (batcher) await batcher.send(topic, message);
      else await producer.send({ topic, acks: -1, messages: [message] });
    },
    disconnect: () => producer.disconnect(),
  };
}
