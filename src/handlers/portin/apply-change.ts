import { RetriableError, ServiceError } from '../../contract/errors';
import { PORT_STATUSES, ruleFor, type PortTrigger } from '../../domain/portin/lifecycle';
import { restoreSecrets, withholdSecrets, type Cause } from '../../domain/portin/messages';
import type { PortInRequest } from '../../domain/portin/request';
import type { Change, FollowUp, Plan } from '../../domain/portin/transitions';
import type { OutgoingMessage } from '../../contract/messages';
import type { PortInDeps } from './deps';
import type { CommandContext } from '../../contract/handlers';
import type { NumberState, RecordedOutcome, WriteMode } from './ports';

/**
 * The one way a port-in request changes: replay the recorded outcome if the cause was handled already;
 * else read, plan (pure, from the lifecycle table), and write with compare-and-set, planning again when
 * another writer got there first; then run the follow-ups (idempotent) and return the messages. A
 * command's change is recorded with its command id and payload fingerprint: it replays from that record
 * (the same reply, events and NP requests, their secrets restored from the request), and the same command
 * id with another payload is a CONFLICT.
 */
const MAX_ATTEMPTS = 5;

/** The command a change is made for: the pipeline's context of it. */
export type ChangeCommand = Pick<CommandContext, 'commandId' | 'fingerprint' | 'correlationId' | 'operation' | 'refuseNew'>;

export interface ChangeSpec {
  gpsi: string;
  cause: Cause;
  mode: WriteMode;
  /** The command making the change (none for an NP response or an expiry). */
  command?: ChangeCommand;
  /** The number's state already read for this cause, to plan from without reading again. */
  read?: NumberState;
  /** Plans against the number's current request (undefined: it has none). May throw a ServiceError. */
  plan(current: PortInRequest | undefined): Plan;
  /** The success reply recorded with the change. */
  reply?(change: Change): Record<string, unknown>;
  /** A single-slot step that must precede the write (e.g. the port-order index). False: skip the change. */
  beforeWrite?(change: Change, current: PortInRequest | undefined): Promise<boolean>;
}

export type ChangeResult = { kind: 'applied'; outcome: RecordedOutcome; replayed: boolean } | { kind: 'conflict'; current: PortInRequest } | { kind: 'ignored'; why: string };

/**
 * A recorded outcome answered again, unless the same command came back with another payload. A record
 * without `by` (an NP response's, or format 1) or made by another command continuing the same claim is replayed.
 */
export function replayOf(recorded: RecordedOutcome, command: ChangeCommand | undefined): ChangeResult {
  if (command && recorded.by?.commandId === command.commandId && recorded.by.fingerprint !== command.fingerprint) {
    throw new ServiceError('CONFLICT', `X-Correlation-Id ${command.correlationId} was already used for a different ${command.operation} command`);
  }
  return { kind: 'applied', outcome: recorded, replayed: true };
}

/** A new change may not be recorded (the partner's rate or quota, the record's age, the command's situation): refused unapplied, a replay still answered. */
export function refuseNewChange(command: ChangeCommand | undefined): void {
  if (command?.refuseNew) throw new ServiceError(command.refuseNew.code, command.refuseNew.message, command.refuseNew.problems);
}

export async function applyChange(deps: Pick<PortInDeps, 'store'>, spec: ChangeSpec): Promise<ChangeResult> {
  const { store } = deps;
  let state = spec.read ?? (await store.readForChange(spec.gpsi, spec.cause.id));
  if (!state.recorded) refuseNewChange(spec.command);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (state.recorded) return replayOf(state.recorded, spec.command);
    const { current } = state;
    const plan = spec.plan(current);
    if (plan.kind === 'conflict') return { kind: 'conflict', current: current as PortInRequest };
    if (plan.kind === 'ignore') return { kind: 'ignored', why: plan.why };
    const { change } = plan;
    if (spec.beforeWrite && !(await spec.beforeWrite(change, current))) return { kind: 'ignored', why: 'refused before writing' };
    const outcome: RecordedOutcome = { messages: change.messages, followUps: change.followUps };
    if (spec.reply) outcome.reply = spec.reply(change);
    const expected = current ? { requestId: current.requestId, portOrderVersion: current.portOrderVersion, portStatus: current.portStatus } : { requestId: null };
    // the recorded copy keeps no secrets: they live on the open request only (restored from it on a replay)
    const by = spec.command && { commandId: spec.command.commandId, fingerprint: spec.command.fingerprint };
    const kept: RecordedOutcome = { ...outcome, messages: outcome.messages.map(withholdSecrets), ...(by ? { by } : {}) };
    const written = await store.write(spec.gpsi, spec.cause.id, expected, spec.mode, change.next, kept);
    if (written.kind === 'written') return { kind: 'applied', outcome, replayed: false };
    if (written.kind === 'replayed') return replayOf(written.outcome, spec.command);
    state = await store.readForChange(spec.gpsi, spec.cause.id);
  }
  throw new RetriableError(`port-in request of ${spec.gpsi} kept changing while ${spec.cause.id} was applied`);
}

/** Runs the follow-ups of an applied change; returns the billing events they produce. */
export async function runFollowUps(deps: Pick<PortInDeps, 'store' | 'subscriptions'>, followUps: FollowUp[], cause: Cause): Promise<OutgoingMessage[]> {
  const messages: OutgoingMessage[] = [];
  for (const step of followUps) {
    switch (step.kind) {
      case 'createPendingSubscription':
        await deps.subscriptions.createPending(step.subscription, cause.id, cause.at);
        break;
      case 'activateSubscription':
        messages.push(...(await deps.subscriptions.activate(step.gpsi, step.at ? new Date(step.at) : cause.at, cause.id, cause.correlationId)));
        break;
      case 'cancelSubscription':
        messages.push(...(await deps.subscriptions.cancel(step.gpsi, cause.at, step.reason, cause.id, cause.correlationId)));
        break;
      case 'scheduleExpiry':
        await deps.store.scheduleExpiry(step.member, new Date(step.deadline));
        break;
    }
  }
  return messages;
}

/**
 * The messages of an applied change: its own (events, NP requests) then those of its follow-ups. A replayed
 * NP request gets its secrets back from the request it was sent for, or is dropped once that moved on.
 */
export async function publishable(deps: Pick<PortInDeps, 'store' | 'subscriptions'>, outcome: RecordedOutcome, cause: Cause): Promise<OutgoingMessage[]> {
  const own = await Promise.all(
    outcome.messages.map(async (message) =>
      message.secrets === 'withheld' ? restoreSecrets(message, await deps.store.byRequest({ gpsi: message.key, requestId: String(message.value.requestId) })) : message,
    ),
  );
  return [...own.filter((message): message is OutgoingMessage => message !== undefined), ...(await runFollowUps(deps, outcome.followUps, cause))];
}

/** The statuses in which the table lets a command move a request, for the CONFLICT message. */
const acceptedIn = (trigger: PortTrigger): string => PORT_STATUSES.filter((s) => ['move', 'replace'].includes(ruleFor(s, trigger).action)).join(' or ');

/** How the partner knows a trigger: by its command (UpdateDueDate is an UpdatePortIn that changes only the due date). */
const COMMAND_OF: Partial<Record<PortTrigger, string>> = { UpdateDueDate: 'UpdatePortIn changing only the due date' };

export const conflictError = (trigger: PortTrigger, request: PortInRequest): ServiceError =>
  new ServiceError(
    'CONFLICT',
    `port-in request ${request.partnerTransactionId} for ${request.gpsi} is ${request.portStatus}: ${COMMAND_OF[trigger] ?? trigger} is accepted in ${acceptedIn(trigger)} only`,
    [{ path: 'portStatus', reason: `is ${request.portStatus}` }],
  );

export const notFoundError = (what: string): ServiceError => new ServiceError('NOT_FOUND', `no port-in request ${what}`);
