import type { Milli } from './units';
import type { ValidFor } from './validity';

/**
 * The balance model. A subscription holds sub-balances, each instantiated from one allowance of one bucket
 * (the plan's PRIMARY bucket or an ADDON). All quantities are milli-units (see units.ts).
 *
 *   allocated  the bucket's allowance for one bill cycle
 *   rollover   the unused part carried from the previous cycle, at most `rolloverCap`
 *   total      allocated + rollover: what the cycle granted
 *   remaining  what is left to use, purchased credit included; never below zero
 *   purchased  the part of remaining that was bought (UpdateBalances Add), kept apart from the grant:
 *              usage draws on the grant first; the catalog decides per subBalanceType whether it carries
 *              over at renewal (see arithmetic.ts). 0 <= purchased <= remaining.
 */
export interface Amounts {
  remaining: Milli;
  allocated: Milli;
  rollover: Milli;
  purchased: Milli;
}

export interface SubBalance extends Amounts {
  subBalanceInstId: string;
  bucketRefId: string;
  bucketKind: 'PRIMARY' | 'ADDON';
  subBalanceType: string;
  unitType: string;
  /** Most that may roll over into the next cycle (the bucket's rolloverCap share of the allocation). */
  rolloverCap: Milli;
  /** Bill cycle number at whose start the bucket ends; 0 = none. Only sub-balances created before validity dates have one. */
  endCycle: number;
  /** The validity of a dated bucket (catalog `validity`): a one-off grant, not renewed, expired at its end. */
  validFor?: ValidFor;
  /** When the purchased credit expires (billing epoch ms; catalog purchasedCredit validity); absent = never or none held. */
  purchasedUntil?: number;
  /** Sum held by live reservations (domain/balance-operations/reservation-rules.ts); absent = none. Part of remaining. */
  reserved?: Milli;
  /** Highest usage threshold (percent) already reported this bill cycle; absent = none (see thresholds.ts). */
  alertedPercent?: number;
}

/** A sub-balance as replies and billing events show it: without what only the service reads. */
export type ShownSubBalance = Pick<
  SubBalance,
  'subBalanceInstId' | 'bucketRefId' | 'subBalanceType' | 'unitType' | 'allocated' | 'remaining' | 'rollover' | 'purchased' | 'validFor' | 'purchasedUntil' | 'reserved'
>;

/**
 * What happened to one sub-balance; ledger entries and billing events both carry these. Expired: a dated bucket's sub-balance reached its end (removed); CreditExpired: its purchased credit did (it stays);
 * Closed: the subscription ended (its number ported out), `before` is what was left.
 */
export type ChangeKind = 'Created' | 'Removed' | 'Add' | 'Subtract' | 'Renewed' | 'Expired' | 'CreditExpired' | 'Closed';

export interface SubBalanceChange {
  change: ChangeKind;
  subBalanceInstId: string;
  bucketRefId: string;
  subBalanceType: string;
  unitType: string;
  /** The quantity of an Add or Subtract. */
  quantity?: Milli;
  /** Absent when the sub-balance was created. */
  before?: Amounts;
  /** Absent when the sub-balance was removed or expired. */
  after?: Amounts;
  /** The sub-balance's validity (dated buckets) and its purchased credit's end, as they are after the change. */
  validFor?: ValidFor;
  purchasedUntil?: number;
}

export type BalanceActionKind = 'Add' | 'Subtract';

/**
 * One action of UpdateBalances after validation. action and quantity are undefined when the command gave a
 * bad one (already reported): the action is then still checked against the subscription, never applied.
 */
export interface BalanceAction {
  subBalanceInstId: string;
  subBalanceType: string;
  unitType: string;
  action: BalanceActionKind | undefined;
  quantity: Milli | undefined;
}

export const totalOf = (amounts: Pick<Amounts, 'allocated' | 'rollover'>): Milli => amounts.allocated + amounts.rollover;
