import type { InboundRecord } from '../contract/transport';
import type { RecordProcessor } from './batch-worker';
import { deadLetterMessage, type DeadLetterSink } from './outbound';

/**
 * A compressed batch the consumer refused to inflate arrives as one placeholder record at the batch's last
 * offset (see src/adapters/kafka/refused-batch.ts): it is dead-lettered UNDECOMPRESSABLE (its detail names
 * the batch's offsets), before any other check, and its partition goes on past the whole batch.
 */
export function deadLetteringRefusedBatches(processor: RecordProcessor, refusedBatchDetail: (message: InboundRecord) => string | undefined, deadLetters: DeadLetterSink): RecordProcessor {
  return async (message, position) => {
    const refusal = refusedBatchDetail(message);
    if (refusal === undefined) return processor(message, position);
    return { outbound: [deadLetterMessage(deadLetters, message, position, { reason: 'UNDECOMPRESSABLE', detail: refusal })], outcome: 'DEAD_LETTER' };
  };
}
