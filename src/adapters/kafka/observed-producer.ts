import type { Producer } from 'kafkajs';
import type { SentListener } from '../../contract/transport';

/**
 * A producer that reports every message Kafka acknowledged (topic and headers), whoever sent it: the
 * worker's batches, event publishers, schedulers. One seam instead of a counter at every send.
 * Messages sent inside a transaction (producer.transaction()) are not reported.
 */
export function observeProducer(producer: Producer, onSent: SentListener): Producer {
  // kafkajs producers are plain objects of closures, so overriding two members keeps the rest intact.
  return {
    ...producer,
    send: async (record) => {
      const result = await producer.send(record);
      onSent(record.messages.map((message) => ({ topic: record.topic, headers: message.headers })));
      return result;
    },
    sendBatch: async (batch) => {
      const result = await producer.sendBatch(batch);
      onSent((batch.topicMessages ?? []).flatMap(({ topic, messages }) => messages.map((message) => ({ topic, headers: message.headers }))));
      return result;
    },
  };
}
