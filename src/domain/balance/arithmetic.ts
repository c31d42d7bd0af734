import type { FieldProblem } from '../../contract/errors';
import type { Amounts, BalanceAction, SubBalance, SubBalanceChange } from './model';
import { MAX_MILLI, type Milli } from './units';

/**
 * Balance arithmetic, pure. The Lua scripts (src/adapters/redis/scripts/) apply exactly these rules
 * atomically in Redis; this module is their executable specification, used by validation, by the unit and
 * property tests, and by the model-based integration test that compares the two.
 */

const amountsOf = (b: Amounts): Amounts => ({ remaining: b.remaining, allocated: b.allocated, rollover: b.rollover });

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

export interface UpdateEvaluation {
  problems: FieldProblem[];
  /** The changes in action order; empty when any problem was found (all or nothing). */
  changes: SubBalanceChange[];
  balances: SubBalance[];
}

/**
 * Evaluates UpdateBalances all or nothing: actions apply in order (two Subtracts on one sub-balance see
 * each other), every problem is listed, and when there is any the balances are returned unchanged.
 * Actions validation found unusable (undefined) or without action/quantity were already reported; the rest
 * are still checked against the subscription so the reply lists every problem.
 */
export function evaluateUpdate(balances: readonly SubBalance[], actions: readonly (BalanceAction | undefined)[], path = 'balances'): UpdateEvaluation {
  const problems: FieldProblem[] = [];
  const working = new Map(balances.map((b) => [b.subBalanceInstId, { ...b }]));
  const changes: SubBalanceChange[] = [];
  actions.forEach((a, i) => {
    if (!a) return; // unusable action (no id, type or unit), reported by validation
    const at = `${path}[${i}]`;
    const target = working.get(a.subBalanceInstId);
    if (!target) {
      problems.push({ path: `${at}.subBalanceInstId`, reason: 'names no sub-balance of this subscription' });
      return;
    }
    let fits = true;
    if (a.subBalanceType !== target.subBalanceType) {
      problems.push({ path: `${at}.subBalanceType`, reason: `must be ${target.subBalanceType} for this sub-balance` });
      fits = false;
    }
    if (a.unitType !== target.unitType) {
      problems.push({ path: `${at}.unitType`, reason: `must be ${target.unitType} for this sub-balance` });
      fits = false;
    }
    if (!fits || a.action === undefined || a.quantity === undefined) return;
    const result = applyQuantity(target.remaining, a.action, a.quantity);
    if ('reason' in result) {
      problems.push({ path: `${at}.quantity`, reason: result.reason });
      return;
    }
    const before = amountsOf(target);
    target.remaining = result.remaining;
    changes.push({
      change: a.action,
      subBalanceInstId: target.subBalanceInstId,
      bucketRefId: target.bucketRefId,
      subBalanceType: target.subBalanceType,
      unitType: target.unitType,
      quantity: a.quantity,
      before,
      after: amountsOf(target),
    });
  });
  if (problems.length > 0) return { problems, changes: [], balances: [...balances] };
  return { problems, changes, balances: balances.map((b) => working.get(b.subBalanceInstId)!) };
}
