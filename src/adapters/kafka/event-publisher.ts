import type { OutgoingMessage, TopicRole } from '../../handlers/types';
import { cloudEventHeaders } from '../../worker/outbound';
import type { OutboundSender } from './partitioned-sender';

/**
 * Publishes messages produced outside a command (the renewal scheduler's billing events): Avro through the
 * registry, CloudEvents binary headers, acks from all in-sync replicas before it resolves.
 */
export interface EventEncoder {
  encode(topic: string, recordName: string, value: object): Promise<Buffer>;
}

export type PublishEvents = (messages: OutgoingMessage[]) => Promise<void>;

export function createEventPublisher(deps: { sender: OutboundSender; codec: EventEncoder; topics: Readonly<Record<TopicRole, string>>; serviceName: string }): PublishEvents {
  return async (messages) => {
    const encoded = await Promise.all(
      messages.map(async (m) => {
        const topic = deps.topics[m.topic];
        const correlationId = typeof m.value.correlationId === 'string' ? m.value.correlationId : undefined;
        const headers = m.cloudEvent
          ? cloudEventHeaders({ ...m.cloudEvent, source: deps.serviceName, type: m.recordName, correlationId })
          : {};
        return { topic, key: m.key, value: await deps.codec.encode(topic, m.recordName, m.value), headers };
      }),
    );
    const refused = await deps.sender.send(encoded);
    // Our own event topics: a refusal is a deployment fault (topic missing, ACL), not one event's; the caller retries.
    if (refused.length > 0) throw new Error(`Kafka refused ${refused.length} event(s): ${refused[0]!.reason}`);
  };
}
