import type { WebhookEvent } from './ports';

/**
 * The CloudEvents HTTP binding, structured mode: the attributes the service set on the record (its ce_*
 * headers) and the decoded value as `data`, in one JSON object. The data is JSON here, not Avro, so the
 * Avro content type and schema address are not carried over.
 */
export const CLOUDEVENTS_JSON = 'application/cloudevents+json';

/** An event as the client library reads it (the fields used here). */
export interface ReadEvent {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  recordName: string;
  cloudEvent: Record<string, string | undefined>;
  value: unknown;
}

export function webhookEventOf(event: ReadEvent): WebhookEvent {
  const { dataschema: _avroSchema, datacontenttype: _avro, ...attributes } = event.cloudEvent;
  const id = attributes.id ?? `${event.topic}-${event.partition}-${event.offset}`;
  const body = { specversion: '1.0', ...attributes, id, type: attributes.type ?? event.recordName, datacontenttype: 'application/json', data: event.value };
  return { id, key: event.key, topic: event.topic, partition: event.partition, offset: event.offset, body: JSON.stringify(body) };
}
