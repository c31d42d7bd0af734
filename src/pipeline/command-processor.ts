import type { Domain } from '../contract/topics';
import type { RecordPosition } from '../contract/transport';
import { readEnvelope, type RoutedEnvelope } from './envelope';
import { admit } from './stages/admit';
import type { Admitted, CommandRecord, Handled, ProcessOutcome, ProcessorDeps } from './stages/context';
import { sentAtMs } from './stages/context';
import { decode } from './stages/decode';
import { handle } from './stages/handle';
import { route } from './stages/route';
import { validate } from './stages/validate';

export type { CommandRecord, ProcessorDeps, ProcessOutcome, Rejection } from './stages/context';
export { commandIdOf } from './stages/admit';
export { fingerprintOf } from './stages/handle';

/**
 * Turns one command record into the messages to send (reply, events, NP requests, dead letter), with no
 * Kafka I/O of its own: the worker sends what this returns and commits only after Kafka acknowledged it.
 * Throws only RetriableError (infrastructure away): then nothing is sent and the record is not committed.
 *
 * The one dispatcher over the stages, each its own module in stages/: admit (headers only) → route (the
 * reply topic) → decode → validate → handle (a change's replay included: its store answers from its
 * recorded outcome). Each stage either hands the next what it needs or answers the record itself.
 */
export class CommandProcessor {
  constructor(private readonly deps: ProcessorDeps) {}

  async process(record: CommandRecord, position: RecordPosition, domain: Domain): Promise<ProcessOutcome> {
    const { deps } = this;
    const envelope = readEnvelope(record.headers, position, deps.envelopeRules[domain]);
    // Who is asking comes before anything that costs: a command without valid credentials, for someone
    // else's customer or over the partner's rate is answered without being decoded or dead-lettered.
    const admitted = await admit(deps, record, position, domain, envelope);
    if ('outbound' in admitted) return admitted;
    const { scope } = admitted;
    let handled: Handled;
    try {
      // Only now, with the caller known, is a requested reply topic judged: inside its own namespace or not at all.
      const routed = await route(deps, domain, envelope, scope.replyPartnerId);
      handled = await this.decodeValidateHandle(record, position, domain, routed, admitted);
    } catch (error) {
      if (admitted.counted) deps.admission.uncount(scope.partnerId); // retried: counted again when admitted again
      throw error;
    }
    const { recorded, ...outcome } = handled;
    if (admitted.counted && !recorded) deps.admission.uncount(scope.partnerId);
    // An answer from a recorded outcome costs no rate: the partner is not charged for the service's redelivery.
    if (admitted.charged && outcome.outcome === 'REPLAYED') deps.admission.refund(scope.partnerId, sentAtMs(record, deps.clock));
    return { ...outcome, customer: scope.effectiveCustomerId };
  }

  private async decodeValidateHandle(record: CommandRecord, position: RecordPosition, domain: Domain, envelope: RoutedEnvelope, admitted: Admitted): Promise<Handled> {
    const { deps } = this;
    const decoded = await decode(deps, domain, record, position, envelope);
    if ('outbound' in decoded) return decoded;
    const validated = await validate(deps, domain, envelope, decoded, admitted);
    if ('outbound' in validated) return validated;
    return handle(deps, domain, decoded.registration, decoded.decoded, envelope, decoded.operation, validated, { record, position });
  }
}
