import type { RecordProcessor } from '../pipeline/batch-worker';
import { contextFromHeaders, inSpan, SpanKind } from '../shared/tracing';

/**
 * A CONSUMER span per record, continuing the trace its `traceparent` names (a partner's, or the NP side's
 * for an NP response), with what became of it; everything the record causes hangs under it.
 */
export function tracedProcessor(processor: RecordProcessor): RecordProcessor {
  return (message, position) =>
    inSpan(
      `${position.topic} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromHeaders(message.headers),
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.destination.name': position.topic,
          'messaging.destination.partition.id': String(position.partition),
          'messaging.kafka.offset': Number(position.offset),
        },
      },
      async (span) => {
        const processed = await processor(message, position);
        span?.setAttributes({ 'wholesale.outcome': processed.outcome, ...(processed.operation ? { 'wholesale.operation': processed.operation } : {}) });
        return processed;
      },
    );
}
