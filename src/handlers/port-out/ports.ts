import type { OutgoingMessage } from '../../contract/messages';
import type { NumberOwner, PortOutFollowUp, PortOutSettings } from '../../domain/port-out/plan';
import type { PortOut } from '../../domain/port-out/port-out';

// What the port-out handlers, its NP record processor and its deadline sweeper need from storage
// (over Redis in src/adapters/redis/portout-store.ts and subscription-ending.ts).

/** The outcome of one cause, recorded with its write so a replay repeats it: the same reply, messages and follow-ups. */
export interface PortOutOutcome {
  reply?: Record<string, unknown>;
  messages: OutgoingMessage[];
  followUps: PortOutFollowUp[];
  /** The command whose change this is and its payload's fingerprint (the same command id with another payload: CONFLICT). */
  by?: { commandId: string; fingerprint: string };
}

/** What a change starts from, read in one step on the number's slot. */
export interface PortOutState {
  recorded?: PortOutOutcome;
  current?: PortOut;
  /** The owner of the number's subscription while it is ACTIVE. */
  owner?: NumberOwner;
  /** The owner of the number's subscription while it is PENDING: its port-in still in flight. */
  portingIn?: NumberOwner;
}

export type PortOutWriteResult = { kind: 'written' } | { kind: 'replayed'; outcome: PortOutOutcome } | { kind: 'stale' };

export interface PortOutStore {
  /** The number's latest port-out. */
  current(gpsi: string): Promise<PortOut | undefined>;
  read(gpsi: string, causeId: string): Promise<PortOutState>;
  /**
   * Atomically: the outcome recorded for `causeId` if there is one (replayed); else stale when the number's
   * port-out is no longer `expected` (null: none); else writes `next` and records `outcome`.
   */
  write(gpsi: string, causeId: string, expected: Pick<PortOut, 'portOutId' | 'status'> | null, next: PortOut, outcome: PortOutOutcome): Promise<PortOutWriteResult>;
  scheduleDeadline(gpsi: string, portOutId: string, deadline: Date): Promise<void>;
  /** The deadlines passed by `now` (at most `limit`), as the gpsi and portOutId scheduled. */
  dueDeadlines(now: Date, limit: number): Promise<{ gpsi: string; portOutId: string }[]>;
  completeDeadline(gpsi: string, portOutId: string): Promise<void>;
}

/** The subscription's end at a port-out; idempotent by the cause. */
export interface SubscriptionEnding {
  /** ACTIVE -> PORTED_OUT: balances closed, renewals stopped; the final billing event (SubscriptionPortedOut). */
  endByPortOut(gpsi: string, portOutId: string, at: Date, causeId: string): Promise<OutgoingMessage[]>;
}

export interface PortOutDeps {
  store: PortOutStore;
  subscriptions: SubscriptionEnding;
  settings: PortOutSettings;
}
