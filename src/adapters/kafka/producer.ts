import { Producer, ProduceAcks, type MessageToProduce } from '@platformatic/kafka';
import { clientOptions, type KafkaConnection } from './connection';
import type { ProduceCall } from './spanning-calls';

/** What this folder's producers take: keys, values and header values as Buffers or text, sent as they are. */
export type Bytes = Buffer | string;
export type ServiceProducer = Producer<Bytes, Buffer, string, Bytes>;

const asBuffer = (data: Bytes | null | undefined): Buffer | undefined => (data === null || data === undefined ? undefined : Buffer.isBuffer(data) ? data : Buffer.from(data));

/** Keys and header values as Buffers or text, values as Buffers, sent as they are. */
export const SERIALIZERS = { key: asBuffer, value: (value: Buffer | undefined) => value, headerKey: asBuffer, headerValue: asBuffer };

/**
 * Producers of this project: every message's partition is chosen by the caller (partitioned-sender.ts,
 * with Java's partitioner), topics are never auto-created, and a send is acknowledged by all in-sync
 * replicas. `ordered`: one request in flight per broker, so a retry never puts a later send of the same
 * partition first — for callers that fire sends without waiting for the previous one (the NP simulator).
 * `once`: a failed request is not retried inside the client, whose retry of a call spanning partitions
 * goes to one leader only (partitioned-sender.ts); the caller sends again in its own way.
 * Not the idempotent mode: a retried send may write a reply or an event twice, which the contract allows
 * (replies are matched by X-Correlation-Id, events de-duplicated by ce_id, effects recorded per command).
 */
export function createProducer(connection: KafkaConnection, options: { ordered: boolean; once?: boolean }): ServiceProducer {
  return new Producer<Bytes, Buffer, string, Bytes>({
    ...clientOptions(connection, 'producer'),
    ...(options.once ? { retries: 0 } : {}),
    ...(options.ordered ? { maxInflights: 1 } : {}),
    acks: ProduceAcks.ALL,
    idempotent: false,
    autocreateTopics: false,
    serializers: SERIALIZERS,
  });
}

/** A produce call on `producer`: one request per leader, every message on the partition it names. */
export function produceCall(producer: ServiceProducer): ProduceCall {
  return async (messages) => {
    const wire: MessageToProduce<Bytes, Buffer, string, Bytes>[] = messages.map(({ topic, partition, key, value, headers }) => ({
      topic,
      partition,
      key: key ?? undefined,
      value: value ?? undefined,
      headers,
    }));
    await producer.send({ messages: wire, acks: ProduceAcks.ALL });
  };
}

/** A topic's partition count as the cluster's metadata has it now (0 for a topic without partitions). */
export function partitionsReader(producer: ServiceProducer): (topic: string) => Promise<number> {
  return async (topic) => {
    const metadata = await producer.metadata({ topics: [topic], forceUpdate: true });
    return metadata.topics.get(topic)?.partitionsCount ?? 0;
  };
}
