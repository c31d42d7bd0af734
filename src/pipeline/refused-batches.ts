import type { InboundRecord } from '../contract/transport';
import type { RecordProcessor } from './batch-worker';
import { deadLetterMessage, type DeadLetterSink } from './outbound';

/**
 * Records of a compressed batch the consumer refused to inflate arrive as placeholders (see
 * src/adapters/kafka/bounded-codecs.ts): each is dead-lettered UNDECOMPRESSABLE at its offset, before any
 * other check, and its partition goes on.
 */
export function deadLetteringRefusedBatches(
  processor: RecordProcessor,
  refusalOf: (message: InboundRecord) => string | undefined,
  deadLetters: DeadLetterSink,
): RecordProcessor {
  return async (message, position) => {
    const refusal = refusalOf(message);
    if (refusal === undefined) return processor(message, position);
    return { outbound: [deadLetterMessage(deadLetters, message, position, { reason: 'UNDECOMPRESSABLE', detail: refusal })], outcome: 'DEAD_LETTER' };
  };
}
