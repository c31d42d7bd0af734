import type { Logger } from 'pino';
import { pollLoop } from './poll-loop';
import type { OutgoingMessage } from '../contract/messages';
import { planPortOut } from '../domain/port-out/plan';
import type { Cause } from '../domain/portin/messages';
import { applyPortOutChange, portOutMessages } from '../handlers/port-out/apply-change';
import type { PortOutDeps } from '../handlers/port-out/ports';

/**
 * Decides the port-outs left unanswered past their validation deadline (PORTOUT_DEADLINE_DECISION,
 * approved by default): publishes the change and only then drops the deadline from the schedule. Each
 * deadline's cause id is its port-out's, so a crash, or two workers sweeping at once, replay the recorded
 * outcome: the same event and NP decision under the same ids (consumers de-duplicate by ce_id).
 */
export interface PortOutDeadlineOptions {
  intervalMs: number;
  batchSize: number;
  clock: () => Date;
  log: Logger;
  /** Publishes messages; resolves once Kafka acknowledged them. */
  publish: (messages: OutgoingMessage[]) => Promise<void>;
}

export interface PortOutDeadlineSweeper {
  start(): void;
  stop(): Promise<void>;
  /** One sweep; returns how many port-outs it decided. */
  sweepOnce(): Promise<number>;
}

export const deadlineCauseId = (portOutId: string): string => `portout-deadline:${portOutId}`;

export function createPortOutDeadlineSweeper(deps: PortOutDeps, options: PortOutDeadlineOptions): PortOutDeadlineSweeper {
  async function decide(gpsi: string, portOutId: string, now: Date): Promise<boolean> {
    const cause: Cause = { id: deadlineCauseId(portOutId), at: now };
    const result = await applyPortOutChange(deps, { gpsi, cause, plan: ({ current }) => planPortOut(current, { trigger: 'Deadline', portOutId }, cause, deps.settings) });
    if (result.kind === 'applied') await options.publish(await portOutMessages(deps, result.outcome, cause));
    await deps.store.completeDeadline(gpsi, portOutId);
    return result.kind === 'applied';
  }

  async function sweepOnce(): Promise<number> {
    const now = options.clock();
    let decided = 0;
    for (const { gpsi, portOutId } of await deps.store.dueDeadlines(now, options.batchSize)) {
      try {
        if (await decide(gpsi, portOutId, now)) decided += 1;
      } catch (error) {
        // left scheduled: the next sweep takes it again
        options.log.error({ err: error, gpsi, portOutId }, 'port-out deadline failed; retried next sweep');
      }
    }
    if (decided > 0) options.log.info({ decided }, 'port-outs decided by their deadline');
    return decided;
  }

  return { ...pollLoop(sweepOnce, options.intervalMs, options.log, 'port-out deadline sweep failed'), sweepOnce };
}
