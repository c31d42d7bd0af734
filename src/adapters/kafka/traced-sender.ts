import { contextFromHeaders, endSpan, headersOfSpan, isTracing, SpanKind, startSpan } from '../../shared/tracing';
import type { Outbound, OutboundSender } from '../../contract/transport';

/**
 * One PRODUCER span per message sent, a child of the span that made the message (its `traceparent`), ended
 * when Kafka acknowledged it or refused it; the message then carries the send span's own `traceparent`, so
 * a consumer's span hangs under the send. Messages without `traceparent` go out as they are.
 */
export function tracedSender(inner: OutboundSender): OutboundSender {
  return {
    async send(messages) {
      if (!isTracing()) return inner.send(messages);
      const spans = new Map<Outbound, ReturnType<typeof startSpan>>();
      const traced = messages.map((message) => {
        if (message.headers.traceparent === undefined) return message;
        const span = startSpan(`${message.topic} publish`, {
          kind: SpanKind.PRODUCER,
          parent: contextFromHeaders(message.headers),
          attributes: { 'messaging.system': 'kafka', 'messaging.operation.type': 'send', 'messaging.destination.name': message.topic },
        });
        const sent = span ? { ...message, headers: { ...message.headers, ...headersOfSpan(span) } } : message;
        spans.set(sent, span);
        return sent;
      });
      try {
        const refused = await inner.send(traced);
        const refusedReason = new Map(refused.map(({ message, reason }) => [message, reason]));
        for (const [message, span] of spans) endSpan(span, refusedReason.get(message));
        // the caller knows the messages it gave, not their traced copies
        return refused.map(({ message, reason }) => ({ message: messages[traced.indexOf(message)] ?? message, reason }));
      } catch (error) {
        for (const span of spans.values()) endSpan(span, (error as Error)?.message ?? String(error));
        throw error;
      }
    },
  };
}
