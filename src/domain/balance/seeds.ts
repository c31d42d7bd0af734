import type { BucketDefinition, Catalog, PlanDefinition } from '../catalog/catalog';
import { amountsOf, changeOf, firstCycleAllocation, rolloverCapOf, type FirstCycle } from './arithmetic';
import type { SubBalanceChange } from './model';
import type { RenewableSubBalance } from './renewal';
import { MILLI_PER_UNIT, type Milli } from './units';
import { validForOf, type ValidFor, type Validity } from './validity';

/**
 * What a Redis script needs to create the sub-balances of one bucket: one seed per allowance, computed
 * from the catalog here so the scripts never read the catalog (the subscription keeps a snapshot).
 */
export interface SubBalanceSeed {
  bucketRefId: string;
  bucketKind: 'PRIMARY' | 'ADDON';
  subBalanceType: string;
  unitType: string;
  allocated: Milli;
  rolloverCap: Milli;
  /** A dated bucket's duration (catalog `validity`); the store turns it into `validFor` from the moment it is added. */
  validity?: Validity;
  /** Set when activation starts a partial first cycle whose allocation or rollover differ from a full one. */
  firstCycle?: FirstCycle;
}

/** A seed as the scripts take it: a dated bucket's period fixed (billing epoch ms). */
export type DatedSeed = Omit<SubBalanceSeed, 'validity'> & { validFor?: ValidFor };

/** Fixes each dated seed's period: from `startMs` (billing time) for its duration, in the subscription's zone. */
export const datedSeeds = (seeds: readonly SubBalanceSeed[], startMs: number, timeZone: string): DatedSeed[] =>
  seeds.map(({ validity, ...seed }) => (validity ? { ...seed, validFor: validForOf(startMs, validity, timeZone) } : seed));

/** Days of the activation's cycle (bill-cycle.ts cycleDaysAt): fewer left than in the cycle = a partial cycle. */
export interface CycleDays {
  daysLeft: number;
  daysInCycle: number;
}

/**
 * A bucket's seeds for a first cycle: in a partial one, the catalog's `firstCycle` (prorate, full, none;
 * default full) sets the allocation and `rolloverFromFirstCycle` (default false) whether its unused part
 * rolls over at the first renewal, which restores the full allocation.
 */
export function firstCycleSeedsOf(bucket: BucketDefinition, days: CycleDays): SubBalanceSeed[] {
  const mode = bucket.firstCycle ?? 'full';
  const rollover = bucket.rolloverFromFirstCycle ?? false;
  const partial = days.daysLeft < days.daysInCycle;
  return seedsOf(bucket).map((seed) => {
    // A dated bucket is a one-off grant for its own period, not a share of the cycle.
    if (!partial || (mode === 'full' && rollover) || seed.validity) return seed; // behaves as a full cycle
    return { ...seed, allocated: firstCycleAllocation(seed.allocated, mode, days), firstCycle: { allocation: seed.allocated, rollover } };
  });
}

/**
 * A new sub-balance from a dated seed, full at its allocation with no rollover or purchased credit (mirrors
 * instantiate in scripts/lib/balance/), and its Created change.
 */
export function instantiate(seed: DatedSeed, subBalanceInstId: string): { balance: RenewableSubBalance; change: SubBalanceChange } {
  const { bucketRefId, bucketKind, subBalanceType, unitType, allocated, rolloverCap, validFor, firstCycle } = seed;
  const balance: RenewableSubBalance = {
    subBalanceInstId,
    bucketRefId,
    bucketKind,
    subBalanceType,
    unitType,
    allocated,
    remaining: allocated,
    rollover: 0,
    purchased: 0,
    rolloverCap,
    endCycle: 0,
    ...(validFor ? { validFor } : {}),
    ...(firstCycle ? { firstCycle } : {}),
  };
  return { balance, change: changeOf('Created', balance, undefined, amountsOf(balance)) };
}

export function seedsOf(bucket: BucketDefinition): SubBalanceSeed[] {
  return bucket.allowances.map((a) => {
    const allocated = Math.round(a.amount * MILLI_PER_UNIT);
    return {
      bucketRefId: bucket.bucketRefId,
      bucketKind: bucket.kind,
      subBalanceType: a.subBalanceType,
      unitType: a.unitType,
      allocated,
      rolloverCap: rolloverCapOf(allocated, bucket.rolloverCap),
      ...(bucket.validity ? { validity: bucket.validity } : {}),
    };
  });
}

export interface ActivationPlan {
  primary: BucketDefinition;
  /** Requested add-ons that the catalog still offers as ADDON, in request order. */
  addOns: BucketDefinition[];
  /** Requested ids the catalog no longer offers as add-ons (skipped, logged by the caller). */
  skipped: string[];
  seeds: SubBalanceSeed[];
}

/**
 * The buckets a subscription starts with: its plan's primary bucket and the add-ons asked for at creation,
 * seeded for the first cycle (`days`: how much of it is left at activation).
 */
export function activationPlan(catalog: Catalog, plan: PlanDefinition, requestedAddOns: readonly string[], days: CycleDays): ActivationPlan {
  const primary = catalog.buckets.get(plan.primaryBucketRefId)!; // buildCatalog guarantees it
  const addOns: BucketDefinition[] = [];
  const skipped: string[] = [];
  for (const id of requestedAddOns) {
    const bucket = catalog.buckets.get(id);
    if (bucket?.kind === 'ADDON') addOns.push(bucket);
    else skipped.push(id);
  }
  return { primary, addOns, skipped, seeds: [primary, ...addOns].flatMap((bucket) => firstCycleSeedsOf(bucket, days)) };
}
