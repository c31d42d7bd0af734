import { amountsOf, changeOf, renewAmounts, type FirstCycle } from './arithmetic';
import type { SubBalance, SubBalanceChange } from './model';

/**
 * What the scheduler does to a subscription's sub-balances, pure: renewal at a bill cycle start and expiry
 * at a validity end. The Lua scripts balancesRenew-4.lua and balancesExpire-4.lua apply the same rules
 * atomically in Redis; the property tests replay random histories through both.
 */
export interface StepResult {
  balances: SubBalance[];
  changes: SubBalanceChange[];
}

/** A sub-balance as renewal sees it: with the mark of a partial first cycle (kept in Redis, not in replies). */
export type RenewableSubBalance = SubBalance & { firstCycle?: FirstCycle };

/**
 * Renewal into bill cycle `cycleNo`: a dated bucket's sub-balances (validFor) are one-off grants, left
 * alone until they expire; a sub-balance from before validity dates whose endCycle has come expires; every
 * other one is renewed (renewAmounts): purchased credit kept when its type is in `carryOver`, else it lapses
 * (its end date with it), and the thresholds reported start afresh.
 */
export function renewBalances(balances: readonly RenewableSubBalance[], cycleNo: number, carryOver: ReadonlySet<string>): StepResult {
  const changes: SubBalanceChange[] = [];
  const kept: SubBalance[] = [];
  for (const { firstCycle, ...b } of balances) {
    if (b.validFor) {
      kept.push(b);
    } else if (b.endCycle !== 0 && b.endCycle <= cycleNo) {
      changes.push(changeOf('Expired', b, amountsOf(b)));
    } else {
      const renewed: SubBalance = { ...b, ...renewAmounts({ ...b, firstCycle, carryOver: carryOver.has(b.subBalanceType) }) };
      delete renewed.alertedPercent;
      if (renewed.purchased === 0) delete renewed.purchasedUntil;
      changes.push(changeOf('Renewed', renewed, amountsOf(b), amountsOf(renewed)));
      kept.push(renewed);
    }
  }
  return { balances: kept, changes };
}

/**
 * Expiry at `cutoff` (billing epoch ms): a dated sub-balance whose validity ended by then is removed
 * (Expired, with what it had); purchased credit whose end came is taken off a sub-balance that stays
 * (CreditExpired, quantity = the credit).
 */
export function expireDue(balances: readonly SubBalance[], cutoff: number): StepResult {
  const changes: SubBalanceChange[] = [];
  const kept: SubBalance[] = [];
  for (const b of balances) {
    if (b.validFor && b.validFor.end <= cutoff) {
      changes.push(changeOf('Expired', b, amountsOf(b)));
    } else if (b.purchasedUntil !== undefined && b.purchasedUntil <= cutoff) {
      const { purchasedUntil: _ended, ...rest } = b;
      const after: SubBalance = { ...rest, remaining: b.remaining - b.purchased, purchased: 0 };
      changes.push(changeOf('CreditExpired', after, amountsOf(b), amountsOf(after), b.purchased));
      kept.push(after);
    } else {
      kept.push(b);
    }
  }
  return { balances: kept, changes };
}

/** The next instant something of these sub-balances expires (billing epoch ms), if any. */
export function nextExpiryOf(balances: readonly Pick<SubBalance, 'validFor' | 'purchasedUntil'>[]): number | undefined {
  const ends = balances.flatMap((b) => [b.validFor?.end, b.purchasedUntil]).filter((end): end is number => end !== undefined);
  return ends.length > 0 ? Math.min(...ends) : undefined;
}
