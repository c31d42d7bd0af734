import type { OutgoingMessage } from '../contract/messages';
import type { TopicRole } from '../contract/topics';
import { partnerTopic, type PartnerTopicRole } from '../contract/partner-topics';
import type { Outbound } from '../contract/transport';
import { withTraceHeaders } from '../shared/tracing';

/**
 * The one place that decides which topics an outgoing message goes to, for every producer of events (the
 * command handlers, the NP response processor, the expiry and renewal schedulers). An event goes to the
 * operator's full event topic (billing) and, when its owner belongs to a known partner, to that partner's
 * own event topic too: byte for byte the same record with the same ce_id, so a partner reads its events and
 * nobody else's. NP requests and anything else go to their one topic.
 */
export interface EventRouting {
  topics: Readonly<Record<TopicRole, string>>;
  partnerTopicPrefix: string;
  /** The partner (root) of a node of the customer hierarchy; undefined for a node it does not know. */
  partnerOf(owner: string): string | undefined;
  /**
   * Where a reader fetches a writer schema by id (the registry's Confluent API root, no credentials): an
   * event's `ce_dataschema` is `<this>/schemas/ids/<id>`, the id the record's wire format carries.
   */
  dataSchemaBaseUrl: string;
}

const PARTNER_EVENT_ROLES: Partial<Record<TopicRole, PartnerTopicRole>> = { portinEvents: 'portinEvents', balanceEvents: 'balanceEvents' };

/** The topics of one message: its own first, then its owning partner's copy (events only). */
export function topicsOf(routing: EventRouting, message: OutgoingMessage): string[] {
  const topic = routing.topics[message.topic];
  const role = PARTNER_EVENT_ROLES[message.topic];
  const partner = role && message.owner ? routing.partnerOf(message.owner) : undefined;
  return partner === undefined ? [topic] : [topic, partnerTopic(routing.partnerTopicPrefix, partner, role!)];
}

/** Encodes once (with the schema registered under the operator's topic) and fans out to every topic of the message. */
export async function routeOutgoing(
  routing: EventRouting,
  encode: (topic: string, recordName: string, value: object) => Promise<Buffer>,
  message: OutgoingMessage,
  headers: Record<string, string>,
): Promise<Outbound[]> {
  const [own, ...copies] = topicsOf(routing, message);
  const value = await encode(own, message.recordName, message.value);
  const traced = withTraceHeaders(headers);
  const described = 'ce_id' in headers ? { ...traced, ce_dataschema: dataSchemaUrl(routing.dataSchemaBaseUrl, value) } : traced;
  return [own, ...copies].map((topic) => ({ topic, key: message.key, value, headers: described }));
}

/** The registry address of the writer schema of a Confluent wire-format value (magic byte, then a 4-byte schema id). */
export function dataSchemaUrl(baseUrl: string, value: Buffer): string {
  return `${baseUrl.replace(/\/+$/, '')}/schemas/ids/${value.readInt32BE(1)}`;
}
