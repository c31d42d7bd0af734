import type { OutgoingMessage } from '../contract/messages';
import { cloudEventHeaders } from './outbound';
import { routeOutgoing, type EventRouting } from './event-routes';
import type { OutboundSender } from '../contract/transport';

/**
 * Publishes messages produced outside a command (the NP responses' and the schedulers' events): Avro
 * through the registry, CloudEvents binary headers, to every topic the event router names (the operator's
 * and the owning partner's), acks from all in-sync replicas before it resolves.
 */
export interface EventEncoder {
  encode(topic: string, recordName: string, value: object): Promise<Buffer>;
}

export type PublishEvents = (messages: OutgoingMessage[]) => Promise<void>;

export function createEventPublisher(deps: { sender: OutboundSender; codec: EventEncoder; routing: EventRouting; serviceName: string }): PublishEvents {
  const encode = deps.codec.encode.bind(deps.codec);
  return async (messages) => {
    const encoded = await Promise.all(
      messages.map((m) => {
        const correlationId = typeof m.value.correlationId === 'string' ? m.value.correlationId : undefined;
        const headers = m.cloudEvent ? cloudEventHeaders({ ...m.cloudEvent, source: deps.serviceName, type: m.recordName, correlationId }) : {};
        return routeOutgoing(deps.routing, encode, m, headers);
      }),
    );
    const refused = await deps.sender.send(encoded.flat());
    // Our own event topics: a refusal is a deployment fault (topic missing, ACL), not one event's; the caller retries.
    if (refused.length > 0) throw new Error(`Kafka refused ${refused.length} event(s): ${refused[0]!.reason}`);
  };
}
