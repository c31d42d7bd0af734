import type { Amounts, BalanceAction, SubBalance, SubBalanceChange } from './model';
import { MAX_MILLI, type Milli } from './units';

// Balance arithmetic, pure: the source of truth of the balance rules. The Lua scripts apply them atomically
// in Redis (scripts/lib/balance/3-rules.lua and balancesUpdate-4.lua), a copy that
// test/integration/balance-rules.test.ts runs against this module on the same inputs; change a rule here
// first. Used by validation and by the unit and property tests (test/support/balance-model.ts builds
// UpdateBalances on it for the model-based test).

export const amountsOf = (b: Amounts): Amounts => ({ remaining: b.remaining, allocated: b.allocated, rollover: b.rollover, purchased: b.purchased });

/** The cap as a share (0..1, at most three decimals) of an allocation, rounded down to a whole milli-unit. */
export function rolloverCapOf(allocated: Milli, share: number): Milli {
  const perMille = BigInt(Math.round(share * 1000));
  return Number((BigInt(allocated) * perMille) / 1000n);
}

/**
 * Applies one Add or Subtract. An Add is purchased credit: it raises remaining and purchased alike (never
 * above MAX_MILLI). A Subtract (usage) draws on the cycle's grant (remaining − purchased) first and on
 * purchased credit only for the rest, and may not take remaining below zero.
 */
export function applyQuantity(b: Pick<Amounts, 'remaining' | 'purchased'>, action: BalanceAction['action'], quantity: Milli): Pick<Amounts, 'remaining' | 'purchased'> | { reason: string } {
  if (action === 'Subtract') {
    if (quantity > b.remaining) return { reason: `would take the remaining balance below zero (remaining ${b.remaining / 1000})` };
    const granted = b.remaining - b.purchased;
    return { remaining: b.remaining - quantity, purchased: b.purchased - Math.max(0, quantity - granted) };
  }
  if (b.remaining + quantity > MAX_MILLI) return { reason: `would take the remaining balance above ${MAX_MILLI / 1000}` };
  return { remaining: b.remaining + quantity, purchased: b.purchased + quantity };
}

/** What a sub-balance in its partial first cycle keeps for its first renewal (see seeds.ts). */
export interface FirstCycle {
  /** The full per-cycle allocation, restored at the first renewal. */
  allocation: Milli;
  /** Whether the partial cycle's unused part may roll over (catalog rolloverFromFirstCycle). */
  rollover: boolean;
}

/**
 * Renewal of one sub-balance at the start of a bill cycle. The unused part of the grant rolls over up to
 * the cap and remaining restarts at the allocation plus that rollover plus the purchased credit kept.
 * Purchased credit is kept whole when its subBalanceType carries over (catalog purchasedCredit); otherwise
 * it lapses with the cycle and only counts towards the rollover, up to the cap, as unused units do. Ending
 * a partial first cycle, the full allocation comes back and nothing rolls over unless the bucket allows it.
 */
export function renewAmounts(b: Amounts & { rolloverCap: Milli; firstCycle?: FirstCycle; carryOver?: boolean }): Amounts {
  const allocated = b.firstCycle?.allocation ?? b.allocated;
  const purchased = b.carryOver ? b.purchased : 0;
  const unused = b.remaining - purchased; // what may roll over: the grant left, and lapsing credit
  const rollover = b.firstCycle && !b.firstCycle.rollover ? 0 : Math.min(unused, b.rolloverCap);
  return { allocated, rollover, purchased, remaining: allocated + rollover + purchased };
}

/**
 * The allocation of a partial first cycle: `prorate` = allocation × daysLeft / daysInCycle rounded down to a
 * milli-unit (exact integer arithmetic), `full`, or `none` (0). Never more than the allocation.
 */
export function firstCycleAllocation(allocated: Milli, mode: 'prorate' | 'full' | 'none', days: { daysLeft: number; daysInCycle: number }): Milli {
  if (mode === 'full' || days.daysLeft >= days.daysInCycle) return allocated;
  if (mode === 'none') return 0;
  return Number((BigInt(allocated) * BigInt(days.daysLeft)) / BigInt(days.daysInCycle));
}

/** End dates (billing epoch ms) that a top-up made now gives purchased credit, by subBalanceType (types whose credit expires). */
export type PurchasedCreditEnds = Readonly<Record<string, number>>;

/** A change of a sub-balance, with its validity and purchased credit end as they are after it. */
export function changeOf(change: SubBalanceChange['change'], b: SubBalance, before?: Amounts, after?: Amounts, quantity?: Milli): SubBalanceChange {
  const { subBalanceInstId, bucketRefId, subBalanceType, unitType } = b;
  return {
    change,
    subBalanceInstId,
    bucketRefId,
    subBalanceType,
    unitType,
    ...(quantity === undefined ? {} : { quantity }),
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    ...(b.validFor ? { validFor: b.validFor } : {}),
    ...(b.purchasedUntil === undefined ? {} : { purchasedUntil: b.purchasedUntil }),
  };
}
