import type { TopicRole } from './topics';

/**
 * A message a handler (or the NP response processor, or a scheduler) asks to publish: an event or an NP
 * request. The pipeline encodes it with its Avro schema and sends it to every topic it is routed to.
 */
export interface OutgoingMessage {
  topic: TopicRole;
  /** Avro record full name, e.g. `wholesale.portin.v1.PortInActivationEvent`; its schema is in schemas/. */
  recordName: string;
  key: string;
  value: Record<string, unknown>;
  /**
   * The node of the customer hierarchy owning what an event is about: its partner gets a copy of the event
   * on its own event topic (pipeline/event-routes.ts). Unset: the operator's topic only.
   */
  owner?: string;
  /** When set, CloudEvents binary-mode headers are added (ce_id, ce_type = recordName, ce_subject…). */
  cloudEvent?: { id: string; subject: string; time: string };
  /**
   * The value carries secrets (an NP request with pwdPin and accountNo): 'inClear' is sent but never kept;
   * 'withheld' is the copy a recorded outcome keeps without them, which the handler fills in again from the
   * open request on a redelivery, or drops once the request moved on.
   */
  secrets?: 'inClear' | 'withheld';
}
