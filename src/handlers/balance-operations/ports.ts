import type { SubBalanceChange } from '../../domain/balance/model';
import type { BalanceOutcome, SubscriptionFacts } from '../../domain/balance/outcome';
import type { ThresholdLevels } from '../../domain/balance/thresholds';
import type { Milli } from '../../domain/balance/units';
import type { ReservationShown } from '../../domain/balance-operations/reservation-events';
import type { CommandMeta } from '../balance/ports';

/** A reservation as its command's record keeps it. */
export type ReservationFacts = ReservationShown;

export interface ReservationOutcome extends BalanceOutcome {
  reservation: ReservationFacts;
}

/**
 * What the reservation handlers need from the state store (Redis Lua scripts in
 * src/adapters/redis/reservation-store.ts). Each call is one atomic step that checks the precondition (an
 * ACTIVE subscription the caller can see) and records its outcome under the command id, refusals too.
 */
export interface ReservationStore {
  /** Held for `ttlMs` from when the store runs it, on the store's clock (Redis's, one for every worker), not the handler's. */
  reserve(meta: CommandMeta, reservation: { reservationId: string; subBalanceInstId: string; amount: Milli; ttlMs: number }): Promise<ReservationOutcome>;
  /** `thresholds`: usage levels by bucket, reported as UpdateBalances does for the usage committed. */
  commit(meta: CommandMeta, commit: { reservationId: string; used: Milli }, thresholds: ThresholdLevels): Promise<ReservationOutcome>;
  release(meta: CommandMeta, reservationId: string): Promise<ReservationOutcome>;
}

/** A reservation released by the scheduler when its time to live ended. */
export interface ExpiredReservation {
  /** When it was released (ISO 8601). */
  at: string;
  subscription: Pick<SubscriptionFacts, 'gpsi' | 'subscriptionId' | 'subscriberId' | 'wholesaleCustomerId' | 'wholesalePlanId'>;
  reservation: ReservationFacts;
}

/** What the reservation expiry scheduler (src/schedulers/reservation-expiry.ts) needs from storage. */
export interface ReservationExpiryStore {
  /**
   * The store's clock (epoch ms): the one `reserve` stamps each end with. The scheduler claims, expires and
   * leases by it, never by the worker's own clock, so a worker's skew cannot end a reservation early or late.
   */
  now(): Promise<number>;
  /** Due subscriptions, each claimed until `leaseUntilMs`. */
  claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<string[]>;
  /** Releases what has ended by `nowMs`, once; the next end among those left. */
  expire(gpsi: string, nowMs: number): Promise<{ expired: number; nextAtMs?: number }>;
  pending(gpsi: string): Promise<{ token: string; expiry: ExpiredReservation }[]>;
  acknowledge(gpsi: string, token: string): Promise<void>;
  /** Back in the due-set at `nextAtMs`, or out of it when undefined (unless a reservation since brought it forward). */
  reschedule(gpsi: string, claimedUntilMs: number, nextAtMs: number | undefined): Promise<void>;
}

/** Which subscription a top-up reference was first used for (one key per reference, outside the subscriptions' slots). */
export interface TopupReferences {
  /** Records `gpsi` as the reference's holder unless one is recorded; answers the holder. */
  claim(wholesaleCustomerId: string, reference: string, gpsi: string): Promise<string>;
}

/** What a transfer moves, from the command (or from the pending entry the sweeper resumes). */
export interface TransferOrder {
  subBalanceInstId: string;
  toGpsi: string;
  toSubBalanceInstId: string;
  amount: Milli;
}

/**
 * A transfer's three steps (src/adapters/redis/transfer-store.ts), each atomic and idempotent under the
 * transfer's id (the command id): run again after a crash, each does its part once.
 */
export interface TransferStore {
  /**
   * Before the debit: notes the whole order for the pending-transfer sweeper, due after the sweep age, so a
   * transfer left pending is found even when its command never comes back (again: due later).
   */
  note(meta: CommandMeta, order: TransferOrder): Promise<void>;
  /**
   * A reversed transfer whose TransferReversed goes out with the command's reply: the note out of the due-set,
   * so the sweeper does not publish it again (it publishes a reversal it finds still noted: its event may not
   * have gone out). A crash before the reply leaves the command to be redelivered, which notes it again.
   */
  unnote(meta: CommandMeta, order: TransferOrder): Promise<void>;
  /** Step 1, the source: takes the amount, records the transfer pending and the command's outcome (refusals thrown, recorded). */
  debit(meta: CommandMeta, debit: { subBalanceInstId: string; amount: Milli }): Promise<BalanceOutcome>;
  /** Step 2, the target: adds the amount (its change), or refuses (why); the same answer every time. */
  credit(
    meta: CommandMeta,
    toGpsi: string,
    credit: { subBalanceInstId: string; subBalanceType: string; unitType: string; amount: Milli },
  ): Promise<{ credited: true; change: SubBalanceChange } | { credited: false; reason: string }>;
  /**
   * Step 3, the source: completed when credited, else reversed (the amount given back: `reversal`, its Add,
   * absent when the sub-balance was gone); a settled transfer answers its state, and its reversal again.
   */
  settle(meta: CommandMeta, credited: boolean): Promise<{ state: 'completed' } | { state: 'reversed'; reversal?: SubBalanceChange }>;
}

/** A transfer the sweeper may have to finish: what its command asked, and the command's identity. */
export interface PendingTransfer {
  /** The command's identity as the handler had it (`at` is the sweeper's). */
  meta: Omit<CommandMeta, 'at'>;
  order: TransferOrder;
}

/** What the pending-transfer sweeper (src/schedulers/transfer-sweeper.ts) needs from storage. */
export interface TransferSweepStore {
  /** The store's clock (epoch ms): the one each transfer's note is due by. The sweeper claims and leases by it, never by the worker's own. */
  now(): Promise<number>;
  /** Transfers noted at least the sweep age ago, each claimed until `leaseUntilMs`; `entry` names it for `forget`. */
  claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<{ entry: string; transfer: PendingTransfer }[]>;
  /** The source's record of the transfer: undefined when the debit never ran (or was refused). */
  state(gpsi: string, transferId: string): Promise<'pending' | 'completed' | 'reversed' | undefined>;
  /** Out of the due-set, unless a redelivered command noted it again since the claim. */
  forget(entry: string, claimedUntilMs: number): Promise<void>;
}
