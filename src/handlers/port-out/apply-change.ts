import { RetriableError, ServiceError } from '../../contract/errors';
import type { CommandContext } from '../../contract/handlers';
import type { OutgoingMessage } from '../../contract/messages';
import type { Cause } from '../../domain/portin/messages';
import type { PortOutChange, PortOutPlan } from '../../domain/port-out/plan';
import type { PortOutStatus } from '../../domain/port-out/lifecycle';
import type { PortOutDeps, PortOutOutcome, PortOutState } from './ports';

/**
 * The one way a port-out changes: replay the outcome recorded for the cause; else read, plan (pure, from
 * the lifecycle table) and write with compare-and-set, planning again when another writer got there
 * first. The follow-ups (deadline, the subscription's end) run after the write and are idempotent, so a
 * redelivery that replays runs them again safely.
 */
const MAX_ATTEMPTS = 5;

export type PortOutCommand = Pick<CommandContext, 'commandId' | 'fingerprint' | 'correlationId' | 'operation' | 'refuseNew'>;

export interface PortOutChangeSpec {
  gpsi: string;
  cause: Cause;
  command?: PortOutCommand;
  plan(state: PortOutState): PortOutPlan;
  reply?(change: PortOutChange): Record<string, unknown>;
}

export type PortOutResult = { kind: 'applied'; outcome: PortOutOutcome; replayed: boolean } | { kind: 'ignore'; why: string } | { kind: 'conflict'; status: PortOutStatus } | { kind: 'notFound' };

function replayed(outcome: PortOutOutcome, command: PortOutCommand | undefined): PortOutResult {
  if (command && outcome.by?.commandId === command.commandId && outcome.by.fingerprint !== command.fingerprint) {
    throw new ServiceError('CONFLICT', `X-Correlation-Id ${command.correlationId} was already used for a different ${command.operation} command`);
  }
  return { kind: 'applied', outcome, replayed: true };
}

export async function applyPortOutChange(deps: Pick<PortOutDeps, 'store'>, spec: PortOutChangeSpec): Promise<PortOutResult> {
  let state = await deps.store.read(spec.gpsi, spec.cause.id);
  if (!state.recorded && spec.command?.refuseNew) throw new ServiceError(spec.command.refuseNew.code, spec.command.refuseNew.message);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (state.recorded) return replayed(state.recorded, spec.command);
    const plan = spec.plan(state);
    if (plan.kind !== 'change') return plan;
    const { change } = plan;
    const by = spec.command && { commandId: spec.command.commandId, fingerprint: spec.command.fingerprint };
    const outcome: PortOutOutcome = { messages: change.messages, followUps: change.followUps, ...(spec.reply ? { reply: spec.reply(change) } : {}), ...(by ? { by } : {}) };
    const expected = state.current ? { portOutId: state.current.portOutId, status: state.current.status } : null;
    const written = await deps.store.write(spec.gpsi, spec.cause.id, expected, change.next, outcome);
    if (written.kind === 'written') return { kind: 'applied', outcome, replayed: false };
    if (written.kind === 'replayed') return replayed(written.outcome, spec.command);
    state = await deps.store.read(spec.gpsi, spec.cause.id);
  }
  throw new RetriableError(`the port-out of ${spec.gpsi} kept changing while ${spec.cause.id} was applied`);
}

/** The messages of an applied change: its own (event, NP decision), then those its follow-ups produce (the final billing event). */
export async function portOutMessages(deps: Pick<PortOutDeps, 'store' | 'subscriptions'>, outcome: PortOutOutcome, cause: Cause): Promise<OutgoingMessage[]> {
  const messages = [...outcome.messages];
  for (const step of outcome.followUps) {
    switch (step.kind) {
      case 'scheduleDeadline':
        await deps.store.scheduleDeadline(step.gpsi, step.portOutId, new Date(step.deadline));
        break;
      case 'endSubscription':
        messages.push(...(await deps.subscriptions.endByPortOut(step.gpsi, step.portOutId, new Date(step.at), cause.id)));
        break;
    }
  }
  return messages;
}
