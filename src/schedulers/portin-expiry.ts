import type { Logger } from 'pino';
import { expiryDeadline } from '../domain/portin/expiry';
import { causeIds } from '../domain/portin/ids';
import type { Cause } from '../domain/portin/messages';
import type { PortInRequest } from '../domain/portin/request';
import { parseExpiryMember, planExpiry } from '../domain/portin/transitions';
import type { OutgoingMessage } from '../contract/messages';
import { applyChange, publishable } from '../handlers/portin/apply-change';
import type { PortInDeps } from '../handlers/portin/deps';

/**
 * Cancels requests left waiting past their status's deadline (src/domain/portin/expiry.ts): unresolved,
 * unanswered by the NP side, never activated, or a cancel never answered. Deadlines sit in one sorted set; each sweep leases the due members (so several worker instances never take the
 * same one at once), expires them, publishes the messages and only then drops them from the schedule: a
 * crash leaves the member to be taken again when its lease ends, and the recorded outcome makes the
 * retry publish the same messages.
 */
export interface ExpirySweeperOptions {
  intervalMs: number;
  leaseMs: number;
  batchSize: number;
  clock: () => Date;
  log: Logger;
  /** Publishes messages; resolves once Kafka acknowledged them. */
  publish: (messages: OutgoingMessage[]) => Promise<void>;
}

export interface ExpirySweeper {
  start(): void;
  /** Stops the timer and waits for a sweep in flight. */
  stop(): Promise<void>;
  /** One sweep; returns how many requests it expired. */
  sweepOnce(): Promise<number>;
}

export function createExpirySweeper(deps: PortInDeps, options: ExpirySweeperOptions): ExpirySweeper {
  const { store } = deps;

  async function expire(member: string, now: Date): Promise<boolean> {
    const scheduled = parseExpiryMember(member);
    if (!scheduled) {
      await store.completeExpiry(member);
      return false;
    }
    const cause: Cause = { id: causeIds.expiry(scheduled.requestId, scheduled.portOrderVersion), at: now };
    let seen: PortInRequest | undefined;
    const result = await applyChange(deps, {
      gpsi: scheduled.gpsi,
      cause,
      mode: 'update',
      plan: (current) => {
        seen = current;
        return current ? planExpiry(current, scheduled, { cause, settings: deps.settings }) : { kind: 'ignore', why: 'no request' };
      },
    });
    if (result.kind === 'applied') await options.publish(await publishable(deps, result.outcome, cause));
    // still waiting, with a later deadline (its status changed since): the member waits for that one
    const later =
      result.kind === 'ignored' && seen && seen.requestId === scheduled.requestId && seen.portOrderVersion === scheduled.portOrderVersion ? expiryDeadline(seen, deps.settings) : undefined;
    if (later && later.getTime() > now.getTime()) await store.scheduleExpiry(member, later);
    else await store.completeExpiry(member);
    return result.kind === 'applied';
  }

  async function sweepOnce(): Promise<number> {
    const now = options.clock();
    const due = await store.claimDueExpiries(now, options.leaseMs, options.batchSize);
    let expired = 0;
    for (const member of due) {
      try {
        if (await expire(member, now)) expired += 1;
      } catch (error) {
        // left leased: taken again when the lease ends
        options.log.error({ err: error, member }, 'port-in expiry failed; retried after its lease');
      }
    }
    if (expired > 0) options.log.info({ expired }, 'port-in requests expired');
    return expired;
  }

  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    inFlight = sweepOnce()
      .catch((error) => options.log.error({ err: error }, 'port-in expiry sweep failed'))
      .finally(() => {
        if (timer) timer = setTimeout(tick, options.intervalMs);
      });
  };

  return {
    start() {
      if (timer) return;
      timer = setTimeout(tick, options.intervalMs);
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
    sweepOnce,
  };
}
