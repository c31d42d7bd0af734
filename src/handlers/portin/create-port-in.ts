import { ServiceError, isServiceError } from '../../contract/errors';
import type { CreatePortInCommand } from '../../domain/portin/commands';
import { NUMBER_ALREADY_ACTIVE, decideEligibility } from '../../domain/portin/eligibility';
import { causeIds, payloadFingerprint, requestIdFor } from '../../domain/portin/ids';
import { isInProgress } from '../../domain/portin/lifecycle';
import type { Cause } from '../../domain/portin/messages';
import { reason } from '../../domain/portin/reason-codes';
import { dueDateRules, pendingSubscriptionFor, type PortInRequest } from '../../domain/portin/request';
import { createPortInSituation } from '../../domain/portin/situation';
import { planCreate } from '../../domain/portin/transitions';
import { checkCreatePortIn } from '../../domain/portin/validate-commands';
import { orBadRequest } from '../../domain/validation/problems';
import type { CommandContext, Handler, HandlerResult } from '../../contract/handlers';
import { applyChange, publishable, refuseNewChange, replayOf, type ChangeResult } from './apply-change';
import type { NumberState, RecordedOutcome } from './ports';
import { ownerOf, type PortInDeps } from './deps';
import { answerResubmission } from './resubmission';

/**
 * CreatePortIn. Order of steps, each safe to repeat: validate the form (pure); read this command's recorded
 * outcome (a redelivery replays it); check the due date and the catalog (pure, from now); claim the
 * partner transaction (its own slot) so a retry with the same payload gets the first reply and another
 * payload a CONFLICT; check eligibility; write the request (the number's slot, outcome recorded under
 * the request id, so a retry that takes an abandoned claim over replays it); create the pending
 * subscription; settle the claim with the reply. A refusal before the write gives the claim back.
 */
function inProgressError(existing: PortInRequest, canSee: CommandContext['canSee']): ServiceError {
  const { reasonCode, reasonDescription } = reason('PORT_IN_IN_PROGRESS');
  // another partner's request: that one exists, nothing of its status or owner (as eligibility tells anyone)
  if (!canSee(existing.wholesaleCustomerId)) {
    return new ServiceError('CONFLICT', `${existing.gpsi} already has a port-in in progress`, [{ path: 'gpsi', reason: `${reasonCode} ${reasonDescription}` }]);
  }
  const which = `request ${existing.partnerTransactionId}`;
  return new ServiceError('CONFLICT', `${existing.gpsi} already has a port-in in progress: ${which} is ${existing.portStatus}`, [
    { path: 'gpsi', reason: `${reasonCode} ${reasonDescription}: ${which} (${existing.portStatus})` },
  ]);
}

/** Eligibility must pass; the port-in in progress is named, the other reasons carried as they are. */
function checkEligibility(deps: PortInDeps, command: CreatePortInCommand, state: NumberState, canSee: CommandContext['canSee']): void {
  const { current, subscriptionStatus } = state;
  if (current && isInProgress(current.portStatus)) throw inProgressError(current, canSee);
  const decision = decideEligibility({
    gpsi: command.gpsi,
    hasActiveSubscription: subscriptionStatus === 'ACTIVE',
    hasPortInProgress: subscriptionStatus === 'PENDING',
    nonPortableRanges: deps.nonPortableRanges,
  });
  if (decision.eligibilityStatus !== 'Eligible') {
    throw new ServiceError('CONFLICT', `${command.gpsi} is not eligible for port-in: ${decision.reasonCode} ${decision.reasonDesc}`, [
      { path: 'gpsi', reason: `${decision.reasonCode} ${decision.reasonDesc}` },
    ]);
  }
}

/**
 * Writes the request, planned from the number's state read before the claim; a refusal (thrown) comes
 * before anything is written, so the caller may give its claim back.
 */
async function writeRequest(deps: PortInDeps, command: CreatePortInCommand, requestId: string, payloadHash: string, context: CommandContext, cause: Cause, state: NumberState) {
  const owner = ownerOf(context);
  const subscription = pendingSubscriptionFor(command, owner, context.now);
  const existing = state.current;
  // a retry that took over a claim abandoned so long ago that its outcome is forgotten: the request is
  // written; answer its reply and make sure of the pending subscription (idempotent)
  if (existing?.requestId === requestId) {
    return { reply: existing.createReply as unknown as Record<string, unknown>, messages: [], followUps: [{ kind: 'createPendingSubscription' as const, subscription }] };
  }
  checkEligibility(deps, command, state, context.canSee);
  const facts = { requestId, wholesaleCustomerId: owner, payloadHash, correlationId: context.correlationId, now: context.now, numberLeft: state.subscriptionStatus === 'PORTED_OUT' };
  const result = await applyChange(deps, {
    gpsi: command.gpsi,
    cause,
    mode: 'replace',
    command: context,
    read: state,
    plan: (current) => planCreate(current, command, facts, subscription, { cause, settings: deps.settings }),
    reply: (change) => change.next.createReply as unknown as Record<string, unknown>,
  });
  if (result.kind === 'conflict') {
    if (isInProgress(result.current.portStatus)) throw inProgressError(result.current, context.canSee);
    throw new ServiceError('CONFLICT', `${command.gpsi} was already ported in (${result.current.portStatus})`, [
      { path: 'gpsi', reason: `${NUMBER_ALREADY_ACTIVE.reasonCode} ${NUMBER_ALREADY_ACTIVE.reasonDesc}` },
    ]);
  }
  if (result.kind === 'ignored') throw new ServiceError('CONFLICT', `${command.gpsi} cannot take a new port-in: ${result.why}`);
  return result.outcome;
}

export const createCreatePortIn =
  (deps: PortInDeps): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkCreatePortIn(raw));
    const owner = ownerOf(context);
    const payloadHash = payloadFingerprint(command);
    // The number's slot first, in one step: this command's recorded outcome (a redelivery replays it, or is
    // a CONFLICT with another payload), the current request and the subscription's status to plan from.
    const ownCause: Cause = { id: causeIds.creation(requestIdFor(context.commandId)), at: context.now, correlationId: context.correlationId };
    let state = await deps.store.readForChange(command.gpsi, ownCause.id);
    if (state.recorded) return finish(deps, context, command, ownCause, replayOf(state.recorded, context));
    refuseNewChange(context);
    // Judged only now: a change applied with a due date allowed then replays above, whatever today's calendar says.
    const problems = createPortInSituation(command, dueDateRules(deps.settings, context.now), deps.catalog);
    if (problems.length > 0) throw ServiceError.badRequest(problems);
    const claim = await deps.store.claimTransaction(owner, command.partnerTransactionId, {
      commandId: context.commandId,
      payloadHash,
      gpsi: command.gpsi,
      requestId: requestIdFor(context.commandId),
      now: context.now,
    });
    if (claim.kind === 'duplicate') return answerResubmission(deps.store, owner, command.partnerTransactionId, claim.reply);
    if (claim.kind === 'mismatch') {
      throw new ServiceError('CONFLICT', `partnerTransactionId ${command.partnerTransactionId} was already used with a different payload`, [
        { path: 'partnerTransactionId', reason: 'is already used by another port-in request' },
      ]);
    }
    if (claim.kind === 'busy') {
      throw new ServiceError('CONFLICT', `partnerTransactionId ${command.partnerTransactionId} is being handled by an earlier command: retry later`);
    }
    const cause: Cause = { id: causeIds.creation(claim.requestId), at: context.now, correlationId: context.correlationId };
    // this command took over an abandoned claim: the request it continues is another command's
    if (cause.id !== ownCause.id) state = await deps.store.readForChange(command.gpsi, cause.id);
    if (state.recorded) return finish(deps, context, command, cause, replayOf(state.recorded, context));
    let outcome: RecordedOutcome;
    try {
      outcome = await writeRequest(deps, command, claim.requestId, payloadHash, context, cause, state);
    } catch (error) {
      if (isServiceError(error)) await deps.store.releaseTransaction(owner, command.partnerTransactionId, context.commandId);
      throw error;
    }
    return finish(deps, context, command, cause, { kind: 'applied', outcome, replayed: false });
  };

/** Publishes an applied (or replayed) creation: its messages, the pending subscription, then the claim settled with the reply. */
async function finish(deps: PortInDeps, context: CommandContext, command: CreatePortInCommand, cause: Cause, result: ChangeResult): Promise<HandlerResult> {
  if (result.kind !== 'applied') throw new Error('only an applied creation is finished');
  const reply = result.outcome.reply as Record<string, unknown>;
  const messages = await publishable(deps, result.outcome, cause);
  await deps.store.settleTransaction(ownerOf(context), command.partnerTransactionId, context.commandId, reply);
  return { reply, messages, ...(result.replayed ? { replayed: true } : {}) };
}
