import type { OutgoingMessage } from '../contract/messages';
import { cloudEventHeaders } from './outbound';
import { routeOutgoing, type EventRouting } from './event-routes';
import type { Outbound } from '../contract/transport';

/**
 * Events made outside a command — an NP response's and the schedulers' — encoded as a command's are: Avro
 * through the registry, CloudEvents binary headers, one message per topic the event router names (the
 * operator's and the owning partner's).
 */
export interface EventEncoder {
  encode(topic: string, recordName: string, value: object): Promise<Buffer>;
}

export type EncodeEvents = (messages: OutgoingMessage[]) => Promise<Outbound[]>;

export function createEventEncoder(deps: { codec: EventEncoder; routing: EventRouting; serviceName: string }): EncodeEvents {
  const encode = deps.codec.encode.bind(deps.codec);
  return async (messages) => {
    const encoded = await Promise.all(
      messages.map((m) => {
        const correlationId = typeof m.value.correlationId === 'string' ? m.value.correlationId : undefined;
        const headers = m.cloudEvent ? cloudEventHeaders({ ...m.cloudEvent, source: deps.serviceName, type: m.recordName, correlationId }) : {};
        return routeOutgoing(deps.routing, encode, m, headers);
      }),
    );
    return encoded.flat();
  };
}

/** Publishes a scheduler's events; resolves once Kafka has them (in a committed transaction, when outputs are exactly once). */
export type PublishEvents = (messages: OutgoingMessage[]) => Promise<void>;

/** `write` is the service's output door for messages no consumed record answers (service.ts picks it by delivery mode). */
export function createEventPublisher(encode: EncodeEvents, write: (messages: Outbound[]) => Promise<void>): PublishEvents {
  return async (messages) => write(await encode(messages));
}
