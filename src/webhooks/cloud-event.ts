import type { ContractEvent } from '../client/events';
import type { WebhookEvent } from './ports';

/**
 * The CloudEvents HTTP binding, structured mode: the attributes the service set on the record (ce_*
 * headers) and the decoded value as `data`, in one JSON object. The data is JSON here, not Avro.
 */
export const CLOUDEVENTS_JSON = 'application/cloudevents+json';

export function webhookEventOf(event: ContractEvent): WebhookEvent {
  const { dataschema: _avroSchema, datacontenttype: _avro, ...attributes } = event.cloudEvent;
  const id = attributes.id ?? `${event.topic}-${event.partition}-${event.offset}`;
  const body = {
    specversion: '1.0',
    ...attributes,
    id,
    type: attributes.type ?? event.recordName,
    datacontenttype: 'application/json',
    data: event.value,
  };
  return { id, key: event.key, topic: event.topic, partition: event.partition, offset: event.offset, body: JSON.stringify(body) };
}
