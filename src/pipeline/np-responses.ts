import type { Logger } from 'pino';
import { RetriableError, asRetriable } from '../contract/errors';
import type { EncodeEvents } from './event-publisher';
import { DecodeError, type Codec } from '../contract/codec';
import type { NpResponseProcessor } from '../handlers/portin/np-response-processor';
import type { RecordProcessor } from './batch-worker';
import { correlationIdOf } from './envelope';
import { deadLetterMessage, type DeadLetterSink } from './outbound';

/**
 * The consumer side of np.portin.responses.v1: not a command (no reply). Each record is decoded, handed
 * to the port-in NP response processor, and the events it returns are encoded and returned as the record's
 * outputs: the batch loop sends them as it sends a command's (the one door), before or with the record's
 * offset commit, and a redelivery replays the outcome the processor recorded. An undecodable record goes
 * to the DLQ; a failure that passes (Redis refusing or away, the registry away, a follow-up not done yet)
 * holds the record, retried by the batch loop until it is done, so a port's transition is never dead-lettered.
 */
export interface NpResponseConsumerDeps {
  codec: Pick<Codec, 'decode'>;
  process: NpResponseProcessor;
  encode: EncodeEvents;
  deadLetters: DeadLetterSink;
  clock: () => Date;
  log: Logger;
  isRetriable: (error: unknown) => boolean;
}

export function createNpResponseRecordProcessor(deps: NpResponseConsumerDeps): RecordProcessor {
  return async (message, position) => {
    let decoded;
    try {
      decoded = await deps.codec.decode(message.value);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      const cause = { reason: error.reason, detail: error.message, diagnostic: error.diagnostic };
      return { outbound: [deadLetterMessage(deps.deadLetters, message, position, cause)], outcome: 'DEAD_LETTER' };
    }
    const operation = decoded.recordName.slice(decoded.recordName.lastIndexOf('.') + 1);
    // The same correlation id as the worker's lines for this record (from its headers, else its position).
    const log = deps.log.child({ operation, correlationId: correlationIdOf(message.headers, position) });
    let messages;
    try {
      messages = await deps.process({ recordName: decoded.recordName, value: decoded.value }, { now: deps.clock(), log });
    } catch (error) {
      if (error instanceof RetriableError || deps.isRetriable(error)) throw asRetriable(error);
      throw error; // a bug: dead-lettered by the batch worker, never retried forever
    }
    // The transition is recorded; its events are owed. The registry away now is no reason to drop them: the
    // record is retried, the processor replays the recorded outcome and the same events are encoded again.
    const outbound = messages.length > 0 ? await deps.encode(messages).catch((error: unknown) => Promise.reject(asRetriable(error))) : [];
    return { outbound, outcome: messages.length > 0 ? 'Applied' : 'NoChange', operation };
  };
}
