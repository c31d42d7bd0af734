import type { SentListener } from '../../contract/transport';
import type { ProduceCall } from './spanning-calls';

/**
 * A produce call that reports every message Kafka acknowledged (topic and headers), whoever sent it: the
 * worker's batches, event publishers, schedulers. One seam instead of a counter at every send.
 */
export function observeProduceCall(produce: ProduceCall, onSent: SentListener): ProduceCall {
  return async (messages) => {
    await produce(messages);
    onSent(messages);
  };
}
