import type { Catalog } from '../catalog/catalog';
import type { Amounts, SubBalance } from './model';
import { totalOf } from './model';
import { amountsOf } from './arithmetic';
import type { Milli } from './units';

// Usage thresholds, pure, the source of truth (mirrored by markThresholds in scripts/lib/balance/3-rules.lua,
// checked by test/integration/balance-rules.test.ts). A level is a whole percent of the cycle's grant
// (total = allocated + rollover) used up: 80 = at most 20 % of the total left, 100 = nothing left. Each level
// is reported once per sub-balance and bill cycle: the sub-balance keeps the highest level reported
// (`alertedPercent`), renewal clears it. Levels come from the catalog per bucket.

/** Thresholds per bucketRefId (catalog `buckets[].thresholds`), ascending whole percents 1..100. */
export type ThresholdLevels = Readonly<Record<string, readonly number[]>>;

/**
 * The most a sub-balance may have left once `percent` of its total is used: floor(total × (100 − p) / 100),
 * computed on total = 100q + r so no intermediate value leaves the exact range of a double (total ≤ 2^53 / 100
 * would not hold for the largest balances).
 */
export function remainingAtThreshold(total: Milli, percent: number): Milli {
  const left = 100 - percent;
  const q = Math.floor(total / 100);
  const r = total - q * 100;
  return q * left + Math.floor((r * left) / 100);
}

/** Levels newly reached: above the highest already reported this cycle, and remaining at or below their mark. */
export function reachedThresholds(amounts: Omit<Amounts, 'purchased'>, levels: readonly number[], alertedPercent: number): number[] {
  const total = totalOf(amounts);
  return levels.filter((p) => p > alertedPercent && amounts.remaining <= remainingAtThreshold(total, p));
}

/** One level a sub-balance reached, with its amounts after the change (a BalanceThresholdReached event). */
export interface ThresholdReached {
  subBalanceInstId: string;
  bucketRefId: string;
  subBalanceType: string;
  unitType: string;
  percent: number;
  amounts: Amounts;
}

/**
 * After a successful change: every changed sub-balance (in balance order) reports the levels of its bucket it
 * newly reached and keeps the highest as `alertedPercent`, so the same level is not reported again this cycle.
 */
export function markThresholds(balances: readonly SubBalance[], changed: ReadonlySet<string>, levels: ThresholdLevels): { balances: SubBalance[]; reached: ThresholdReached[] } {
  const reached: ThresholdReached[] = [];
  const marked = balances.map((b) => {
    if (!changed.has(b.subBalanceInstId)) return b;
    const percents = reachedThresholds(b, levels[b.bucketRefId] ?? [], b.alertedPercent ?? 0);
    if (percents.length === 0) return b;
    const { subBalanceInstId, bucketRefId, subBalanceType, unitType } = b;
    const amounts = amountsOf(b);
    for (const percent of percents) reached.push({ subBalanceInstId, bucketRefId, subBalanceType, unitType, percent, amounts });
    return { ...b, alertedPercent: percents[percents.length - 1] };
  });
  return { balances: marked, reached };
}

/** The catalog's levels by bucket (buckets without thresholds are left out). */
export function thresholdLevelsOf(catalog: Catalog): ThresholdLevels {
  const levels: Record<string, readonly number[]> = {};
  for (const bucket of catalog.buckets.values()) if (bucket.thresholds?.length) levels[bucket.bucketRefId] = bucket.thresholds;
  return levels;
}
