import { sha256Hex } from '../../domain/digest';
import { isServiceError } from '../../contract/errors';
import { partnerCommandTopicOf } from '../../contract/partner-topics';
import type { Domain } from '../../contract/topics';
import type { RecordPosition } from '../../contract/transport';
import type { Caller, CustomerScope, QuotaExhausted } from '../../security/access';
import type { Refusal } from '../../contract/handlers';
import type { Envelope } from '../envelope';
import { deadLetterMessage } from '../outbound';
import { answerError } from './answer';
import { retriable, sentAtMs, shortName, type Admitted, type CommandRecord, type ProcessOutcome, type ProcessorDeps, type Rejection } from './context';
import { routedTo } from './route';

// Admission, from the record's headers alone (nothing decoded): who sent it (the token), whom it acts for
// (inside the caller's subtree), whether it is too old to be recognised as a repeat, and the partner's rate
// and idempotency quota. A command refused here costs no decode; a change over the rate or quota, or too
// old, goes on only to replay a recorded outcome (refuseNew).

/** Identity of a command's effect: same correlation id, operation and customer = the same command. */
export const commandIdOf = (customer: string | undefined, operation: string, correlationId: string): string => sha256Hex(JSON.stringify([customer ?? '', operation, correlationId])).slice(0, 32);

const quotaRefusal = ({ held, quota, windowSeconds }: QuotaExhausted) =>
  `The partner's idempotency quota is exhausted: ${held} changes recorded within ${windowSeconds} s, the quota is ${quota}; nothing was applied, retry when older outcomes expire`;

export async function admit(deps: ProcessorDeps, record: CommandRecord, position: RecordPosition, domain: Domain, envelope: Envelope): Promise<Admitted | ProcessOutcome> {
  // Under a flood of forged tokens claiming a partner, its refusal budget runs dry: from then on only tokens
  // verified before are checked (a map lookup), others are shed unverified. A signature check is what a
  // forged record costs; a partner's client reuses its token, so its traffic keeps flowing.
  if (!deps.authenticator.knows(envelope.authorization) && deps.rejectedBudget.spent(envelope.authorization)) {
    return { outbound: [], outcome: 'UNAUTHORIZED', correlationId: envelope.correlationId, rejection: { reason: 'UNAUTHORIZED', action: 'shed' } };
  }
  let caller: Caller;
  try {
    caller = await deps.authenticator.authenticate(envelope.authorization);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return refuseUnauthenticated(deps, record, position, envelope, error.message);
  }
  let scope: CustomerScope;
  try {
    scope = deps.authorizer.authorize(caller, envelope.wholesaleCustomerId);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    const partnerId = deps.authorizer.partnerOf(caller);
    if (partnerId === undefined) return refuseUnauthenticated(deps, record, position, envelope, error.message);
    if (!deps.rejectedBudget.take(envelope.authorization)) return dropped(envelope, 'FORBIDDEN');
    // The caller is verified: answered on its own reply topic, which reveals nothing of another partner.
    const refused = await answerError(deps, domain, routedTo(deps, domain, envelope, partnerId), null, error.code, error.message);
    return { ...refused, rejection: { reason: 'FORBIDDEN', action: 'answered' } };
  }
  // A partner's own command topic carries that partner's commands only: its transactions hold back nobody else's.
  const owner = partnerCommandTopicOf(deps.envelopeRules[domain].partnerTopicPrefix, position.topic)?.partnerId;
  if (owner !== undefined && owner !== scope.replyPartnerId) {
    if (!deps.rejectedBudget.take(envelope.authorization)) return dropped(envelope, 'FORBIDDEN');
    const message = `The command topic ${position.topic} is partner ${owner}'s: send on your own command topic or a shared one`;
    const refused = await answerError(deps, domain, routedTo(deps, domain, envelope, scope.replyPartnerId), null, 'FORBIDDEN', message);
    return { ...refused, rejection: { reason: 'FORBIDDEN', action: 'answered' } };
  }
  const change = await changeOperation(deps, record, domain);
  const isChange = change !== undefined;
  // Checked before the rate: a replay of a topic's retention must not use up the partner's rate. Only a
  // verified caller is answered, on its own reply topic. A change goes on, uncharged, only to replay its
  // recorded outcome (applied before a crash, redelivered late): that answer wins over its age.
  const stale = staleRefusal(deps, record);
  if (stale && !isChange) return answerError(deps, domain, routedTo(deps, domain, envelope, scope.replyPartnerId), null, stale.code, stale.message);
  if (stale) return { scope, charged: false, counted: false, refuseNew: stale };
  const commandId = change === undefined ? undefined : commandIdOf(scope.effectiveCustomerId, change, envelope.correlationId);
  const admission = await retriable(() => deps.admission.admit(scope.partnerId, isChange, sentAtMs(record, deps.clock), commandId));
  if (!admission.allowed) {
    const refuseNew = { code: 'RATE_LIMITED' as const, message: `The partner's command rate is over its limit; retry in ${admission.retryAfterMs} ms` };
    // A query records nothing, so it is simply refused. A change goes on: if its outcome is recorded (a
    // redelivery, a retry with the same X-Correlation-Id) that answer wins, else it is refused unapplied.
    if (!isChange) return answerError(deps, domain, routedTo(deps, domain, envelope, scope.replyPartnerId), null, refuseNew.code, refuseNew.message);
    return { scope, charged: false, counted: false, refuseNew };
  }
  const { quotaExhausted } = admission;
  if (admission.repeat) return { scope, charged: false, counted: false };
  return {
    scope,
    charged: true,
    counted: isChange && !quotaExhausted,
    ...(quotaExhausted ? { refuseNew: { code: 'RATE_LIMITED' as const, message: quotaRefusal(quotaExhausted) } } : {}),
  };
}

/**
 * A command older than the outcome records may have been applied already with no trace left to say so:
 * unless its outcome is still recorded it is refused. Queries too are refused (their requester stopped
 * waiting long ago, and a replay should cost nothing). A record without a usable timestamp is not judged.
 */
function staleRefusal(deps: ProcessorDeps, record: CommandRecord): Refusal | undefined {
  const ageMs = deps.clock().getTime() - Number(record.timestamp);
  if (!(ageMs > deps.maxCommandAgeMs)) return undefined;
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    code: 'STALE_COMMAND',
    message: `The command record is ${seconds(ageMs)} s old, over the ${seconds(deps.maxCommandAgeMs)} s in which a repeat is recognised; it was not applied. Send it again with a new X-Correlation-Id if it is still wanted`,
  };
}

/**
 * The operation when the record is a change (the quota counts it), read from its writer schema's name
 * alone: the rate and the quota are decided before the value is decoded. A value that will not decode,
 * and a query, is no change.
 */
async function changeOperation(deps: ProcessorDeps, record: CommandRecord, domain: Domain): Promise<string | undefined> {
  const recordName = await deps.codec.recordNameOf(record.value);
  const registration = recordName === undefined ? undefined : deps.handlers.get(recordName);
  return registration !== undefined && registration.domain === domain && !registration.readOnly ? shortName(recordName!) : undefined;
}

/**
 * No verified caller, so no partner is known and nothing is answered (a reply topic would be the sender's
 * choice): the refusal is recorded for the operator on the DLQ — headers without the token, no value bytes —
 * while the sender's budget lasts, and only counted after.
 */
function refuseUnauthenticated(deps: ProcessorDeps, record: CommandRecord, position: RecordPosition, envelope: Envelope, reason: string): ProcessOutcome {
  if (!deps.rejectedBudget.take(envelope.authorization)) return dropped(envelope, 'UNAUTHORIZED');
  deps.log.warn({ correlationId: envelope.correlationId, ...position, reason }, 'command refused: no valid credentials');
  const recorded = deadLetterMessage(deps.deadLetters, { ...record, value: null }, position, { reason: 'UNAUTHENTICATED', detail: reason });
  return { outbound: [recorded], outcome: 'UNAUTHORIZED', correlationId: envelope.correlationId, rejection: { reason: 'UNAUTHORIZED', action: 'recorded' } };
}

function dropped(envelope: Envelope, reason: Rejection['reason']): ProcessOutcome {
  return { outbound: [], outcome: reason, correlationId: envelope.correlationId, rejection: { reason, action: 'dropped' } };
}
