import type { Amounts, BalanceAction } from './model';
import { MAX_MILLI, type Milli } from './units';

/**
 * Balance arithmetic, pure. The Lua scripts (src/adapters/redis/scripts/) apply exactly these rules
 * atomically in Redis; this module is their executable specification, used by validation and by the unit
 * and property tests (test/support/balance-model.ts builds UpdateBalances on it for the model-based test).
 */

/** The cap as a share (0..1, at most three decimals) of an allocation, rounded down to a whole milli-unit. */
export function rolloverCapOf(allocated: Milli, share: number): Milli {
  const perMille = BigInt(Math.round(share * 1000));
  return Number((BigInt(allocated) * perMille) / 1000n);
}

/** Applies one Add or Subtract; a Subtract may not take remaining below zero, an Add not above MAX_MILLI. */
export function applyQuantity(remaining: Milli, action: BalanceAction['action'], quantity: Milli): { remaining: Milli } | { reason: string } {
  if (action === 'Subtract') {
    if (quantity > remaining) return { reason: `would take the remaining balance below zero (remaining ${remaining / 1000})` };
    return { remaining: remaining - quantity };
  }
  if (remaining + quantity > MAX_MILLI) return { reason: `would take the remaining balance above ${MAX_MILLI / 1000}` };
  return { remaining: remaining + quantity };
}

/** What a sub-balance in its partial first cycle keeps for its first renewal (see seeds.ts). */
export interface FirstCycle {
  /** The full per-cycle allocation, restored at the first renewal. */
  allocation: Milli;
  /** Whether the partial cycle's unused part may roll over (catalog rolloverFromFirstCycle). */
  rollover: boolean;
}

/**
 * Renewal of one sub-balance at the start of a bill cycle: the unused part (remaining) rolls over up to
 * the cap, and remaining restarts at the allocation plus that rollover. Ending a partial first cycle, the
 * full allocation comes back and nothing rolls over unless the bucket allows it.
 */
export function renewAmounts(b: Amounts & { rolloverCap: Milli; firstCycle?: FirstCycle }): Amounts {
  const allocated = b.firstCycle?.allocation ?? b.allocated;
  const rollover = b.firstCycle && !b.firstCycle.rollover ? 0 : Math.min(b.remaining, b.rolloverCap);
  return { allocated, rollover, remaining: allocated + rollover };
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
