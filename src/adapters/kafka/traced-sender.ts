import { contextFromHeaders, endSpan, headersOfSpan, isTracing, SpanKind, startSpan } from '../../shared/tracing';
import type { Outbound, OutboundSender, Refused, TransactionalOutputs } from '../../contract/transport';

// One PRODUCER span per message sent, a child of the span that made the message (its `traceparent`), ended
// when Kafka acknowledged it (for the exactly-once door: when its transaction committed) or refused it; the
// message then carries the send span's own `traceparent`, so a consumer's span hangs under the send.
// Messages without `traceparent` go out as they are.

/** The messages with their send spans started, and how to end them. */
function startSendSpans(messages: Outbound[]) {
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
  return {
    traced,
    /** The caller knows the messages it gave, not their traced copies. */
    given: (refused: Refused<Outbound>[]): Refused<Outbound>[] => refused.map(({ message, reason }) => ({ message: messages[traced.indexOf(message)] ?? message, reason })),
    sent(refused: Refused<Outbound>[]) {
      const reasonOf = new Map(refused.map(({ message, reason }) => [message, reason]));
      for (const [message, span] of spans) endSpan(span, reasonOf.get(message));
    },
    failed(error: unknown) {
      for (const span of spans.values()) endSpan(span, (error as Error)?.message ?? String(error));
    },
  };
}

export function tracedSender(inner: OutboundSender): OutboundSender {
  return {
    async send(messages) {
      if (!isTracing()) return inner.send(messages);
      const sending = startSendSpans(messages);
      try {
        const refused = await inner.send(sending.traced);
        sending.sent(refused);
        return sending.given(refused);
      } catch (error) {
        sending.failed(error);
        throw error;
      }
    },
  };
}

/** The same spans around the exactly-once door: a unit's messages are sent when its transaction commits. */
export function tracedTransactions(inner: TransactionalOutputs): TransactionalOutputs {
  return {
    async send(unit) {
      if (!isTracing()) return inner.send(unit);
      const sending = startSendSpans(unit.messages);
      // the door may refuse twice for one unit (before the transaction, then in it): every refusal counts
      const refused: Refused<Outbound>[] = [];
      const replaceRefused = (found: Refused<Outbound>[]) => {
        refused.push(...found);
        return unit.replaceRefused(sending.given(found));
      };
      try {
        await inner.send({ ...unit, messages: sending.traced, replaceRefused });
        sending.sent(refused);
      } catch (error) {
        sending.failed(error);
        throw error;
      }
    },
    preparing: () => inner.preparing(),
    close: () => inner.close(),
  };
}
