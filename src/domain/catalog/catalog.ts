import { isTimeZone } from '../balance/bill-cycle';
import { toMilli } from '../balance/units';
import type { Validity } from '../balance/validity';
import { Problems } from '../validation/problems';

/**
 * The product catalog: wholesale plans and the buckets they and partners can attach. Loaded once at start
 * from a configuration file (CATALOG_FILE), validated here without I/O; a bad catalog stops the process.
 */
export type BucketKind = 'PRIMARY' | 'ADDON';

/** Units of each sub-balance type; a new type may be added here. */
export const UNIT_BY_SUB_BALANCE_TYPE: Readonly<Record<string, string>> = {
  'On-Net Voice': 'Min',
  'On-Net SMS': 'SMS',
  'On-Net MMS': 'MMS',
  'On-Net Data': 'MB',
};

export interface Allowance {
  subBalanceType: string;
  unitType: string;
  amount: number;
}

export interface BucketDefinition {
  bucketRefId: string;
  name: string;
  kind: BucketKind;
  /**
   * How long an ADDON lasts from the moment it is added (catalog `validity`: `{ days }` of 24 hours or
   * `{ cycles }`, calendar months in the bill cycle time zone): a one-off grant, not renewed, expired at its
   * end by the scheduler. Absent: renewed every cycle until cancelled (every PRIMARY bucket). The older
   * `validityCycles` is read as `{ cycles }` (0 = absent).
   */
  validity?: Validity;
  /** Share of the allocation that may roll over to the next cycle, 0..1 with at most 3 decimals (0 = none). */
  rolloverCap: number;
  /**
   * The allocation of a first, partial cycle (activation after the cycle's first day): `prorate` by the days
   * left, `full`, or `none` until the first full cycle. Default `full`.
   */
  firstCycle?: FirstCycleAllocation;
  /** Whether the unused part of a partial first cycle may roll over (up to the cap). Default false. */
  rolloverFromFirstCycle?: boolean;
  /** Usage levels (whole percents of the cycle's grant used, ascending) that publish BalanceThresholdReached. */
  thresholds?: number[];
  allowances: Allowance[];
}

export const FIRST_CYCLE_ALLOCATIONS = ['prorate', 'full', 'none'] as const;
export type FirstCycleAllocation = (typeof FIRST_CYCLE_ALLOCATIONS)[number];

export interface PlanDefinition {
  wholesalePlanId: string;
  name: string;
  primaryBucketRefId: string;
  /** IANA time zone whose midnight starts the plan's bill cycles (default UTC); fixed per subscription at creation. */
  billCycleTimeZone?: string;
}

/**
 * What becomes of credit bought for one subBalanceType (UpdateBalances Add, kept apart from the allocation
 * as purchasedBalance). A type the catalog does not list: `carryOver` false.
 */
export interface PurchasedCreditRule {
  /** True: kept whole at renewal, beside the cap. False: lapses with the cycle (it may roll over with the unused allowance, up to the cap). */
  carryOver: boolean;
  /** How long a top-up lasts (its credit expires at the end; a later top-up extends it). Absent: no end. */
  validity?: Validity;
}

export interface Catalog {
  plans: ReadonlyMap<string, PlanDefinition>;
  buckets: ReadonlyMap<string, BucketDefinition>;
  /** By subBalanceType (catalog `purchasedCredit`). */
  purchasedCredit: ReadonlyMap<string, PurchasedCreditRule>;
}

export class CatalogError extends Error {
  constructor(readonly problems: { path: string; reason: string }[]) {
    super(`invalid catalog: ${problems.map((p) => `${p.path} ${p.reason}`).join('; ')}`);
    this.name = 'CatalogError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isShare = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1 && Math.round(v * 1000) / 1000 === v;
const isAscendingPercents = (v: unknown): boolean => Array.isArray(v) && v.every((p, i) => Number.isInteger(p) && p >= 1 && p <= 100 && (i === 0 || p > v[i - 1]));
/** Separators of the compact Redis records (sub-balances, ledger entries), which store bucketRefId as is. */
const RECORD_SEPARATOR = /[|,;\s]/;

function checkAllowance(problems: Problems, path: string, raw: unknown): void {
  if (!isRecord(raw)) {
    problems.add(path, 'must be an object');
    return;
  }
  const expectedUnit = UNIT_BY_SUB_BALANCE_TYPE[String(raw.subBalanceType)];
  if (!expectedUnit) problems.add(`${path}.subBalanceType`, `must be one of ${Object.keys(UNIT_BY_SUB_BALANCE_TYPE).join(', ')}`);
  else if (raw.unitType !== expectedUnit) problems.add(`${path}.unitType`, `must be ${expectedUnit} for ${String(raw.subBalanceType)}`);
  const amount = toMilli(raw.amount);
  if ('reason' in amount) problems.add(`${path}.amount`, amount.reason);
}

const isWhole = (v: unknown, min: number): v is number => Number.isInteger(v) && (v as number) >= min;

/** A validity `{ days: N }` or `{ cycles: N }` (N ≥ 1), or undefined after adding the problem. */
function checkValidity(problems: Problems, path: string, raw: unknown): Validity | undefined {
  const keys = isRecord(raw) ? Object.keys(raw) : [];
  if (isRecord(raw) && keys.length === 1 && (keys[0] === 'days' || keys[0] === 'cycles') && isWhole(raw[keys[0]], 1)) {
    return keys[0] === 'days' ? { days: raw.days as number } : { cycles: raw.cycles as number };
  }
  problems.add(path, 'must be { "days": N } or { "cycles": N } with N a whole number from 1');
  return undefined;
}

/** `validity`, or the older `validityCycles` (0 = renewed until cancelled); a PRIMARY bucket has neither. */
function checkBucketValidity(problems: Problems, path: string, raw: Record<string, unknown>): void {
  if (raw.validity !== undefined && raw.validityCycles !== undefined) problems.add(`${path}.validity`, 'must not be given with validityCycles');
  else if (raw.validity !== undefined) {
    checkValidity(problems, `${path}.validity`, raw.validity);
    if (raw.kind === 'PRIMARY') problems.add(`${path}.validity`, 'must be absent for a PRIMARY bucket (renewed every cycle)');
  } else if (raw.validityCycles !== undefined && !isWhole(raw.validityCycles, 0)) {
    problems.add(`${path}.validityCycles`, 'must be a whole number of bill cycles (0 = renewed until cancelled)');
  } else if (raw.kind === 'PRIMARY' && (raw.validityCycles ?? 0) !== 0) {
    problems.add(`${path}.validityCycles`, 'must be 0 for a PRIMARY bucket (renewed every cycle)');
  }
}

/** The bucket as the service keeps it: validity normalized (validityCycles N → { cycles: N }, 0 → none). */
function bucketOf(raw: BucketDefinition & { validityCycles?: number }): BucketDefinition {
  const { validityCycles, ...bucket } = raw;
  if (bucket.validity === undefined && validityCycles) bucket.validity = { cycles: validityCycles };
  return bucket;
}

function checkBucket(problems: Problems, path: string, raw: unknown): raw is BucketDefinition {
  const before = problems.list.length;
  if (!isRecord(raw)) {
    problems.add(path, 'must be an object');
    return false;
  }
  if (!nonEmpty(raw.bucketRefId)) problems.add(`${path}.bucketRefId`, 'must be a non-empty string');
  else if (RECORD_SEPARATOR.test(raw.bucketRefId)) problems.add(`${path}.bucketRefId`, 'must not contain |, comma, ; or white space');
  if (!nonEmpty(raw.name)) problems.add(`${path}.name`, 'must be a non-empty string');
  if (raw.kind !== 'PRIMARY' && raw.kind !== 'ADDON') problems.add(`${path}.kind`, 'must be PRIMARY or ADDON');
  checkBucketValidity(problems, path, raw);
  if (!isShare(raw.rolloverCap)) problems.add(`${path}.rolloverCap`, 'must be a share from 0 to 1 with at most 3 decimals');
  if (raw.firstCycle !== undefined && !FIRST_CYCLE_ALLOCATIONS.includes(raw.firstCycle as FirstCycleAllocation)) {
    problems.add(`${path}.firstCycle`, `must be one of ${FIRST_CYCLE_ALLOCATIONS.join(', ')}`);
  }
  if (raw.rolloverFromFirstCycle !== undefined && typeof raw.rolloverFromFirstCycle !== 'boolean') problems.add(`${path}.rolloverFromFirstCycle`, 'must be true or false');
  if (raw.thresholds !== undefined && !isAscendingPercents(raw.thresholds)) {
    problems.add(`${path}.thresholds`, 'must list whole percents from 1 to 100 in ascending order');
  }
  if (!Array.isArray(raw.allowances) || raw.allowances.length === 0) problems.add(`${path}.allowances`, 'must list at least one allowance');
  else {
    raw.allowances.forEach((a, i) => checkAllowance(problems, `${path}.allowances[${i}]`, a));
    const types = raw.allowances.map((a) => (isRecord(a) ? a.subBalanceType : undefined));
    if (new Set(types).size !== types.length) problems.add(`${path}.allowances`, 'must not repeat a subBalanceType');
  }
  return problems.list.length === before;
}

function checkPurchasedCredit(problems: Problems, raw: unknown): Map<string, PurchasedCreditRule> {
  const rules = new Map<string, PurchasedCreditRule>();
  if (raw === undefined) return rules;
  if (!isRecord(raw)) {
    problems.add('purchasedCredit', 'must be an object keyed by subBalanceType');
    return rules;
  }
  for (const [type, rule] of Object.entries(raw)) {
    const path = `purchasedCredit.${type}`;
    if (!UNIT_BY_SUB_BALANCE_TYPE[type]) problems.add(path, `must be one of ${Object.keys(UNIT_BY_SUB_BALANCE_TYPE).join(', ')}`);
    else if (!isRecord(rule) || typeof rule.carryOver !== 'boolean') problems.add(`${path}.carryOver`, 'must be true or false');
    else if (rule.validity === undefined) rules.set(type, { carryOver: rule.carryOver });
    else {
      const validity = checkValidity(problems, `${path}.validity`, rule.validity);
      if (validity) rules.set(type, { carryOver: rule.carryOver, validity });
    }
  }
  return rules;
}

/** Validates a parsed catalog document and indexes it; throws CatalogError listing every problem. */
export function buildCatalog(document: unknown): Catalog {
  const problems = new Problems();
  const buckets = new Map<string, BucketDefinition>();
  const plans = new Map<string, PlanDefinition>();
  if (!isRecord(document)) throw new CatalogError([{ path: '', reason: 'must be an object with plans and buckets' }]);
  const rawBuckets = Array.isArray(document.buckets) ? document.buckets : [];
  if (rawBuckets.length === 0) problems.add('buckets', 'must list at least one bucket');
  rawBuckets.forEach((raw, i) => {
    if (!checkBucket(problems, `buckets[${i}]`, raw)) return;
    if (buckets.has(raw.bucketRefId)) problems.add(`buckets[${i}].bucketRefId`, `repeats ${raw.bucketRefId}`);
    buckets.set(raw.bucketRefId, bucketOf(raw));
  });
  const rawPlans = Array.isArray(document.plans) ? document.plans : [];
  if (rawPlans.length === 0) problems.add('plans', 'must list at least one plan');
  rawPlans.forEach((raw, i) => {
    const path = `plans[${i}]`;
    if (!isRecord(raw) || !nonEmpty(raw.wholesalePlanId) || !nonEmpty(raw.name) || !nonEmpty(raw.primaryBucketRefId)) {
      problems.add(path, 'must have wholesalePlanId, name and primaryBucketRefId strings');
      return;
    }
    const primary = buckets.get(raw.primaryBucketRefId);
    if (!primary) problems.add(`${path}.primaryBucketRefId`, `names no bucket (${raw.primaryBucketRefId})`);
    else if (primary.kind !== 'PRIMARY') problems.add(`${path}.primaryBucketRefId`, `names an ${primary.kind} bucket, not a PRIMARY one`);
    if (plans.has(raw.wholesalePlanId)) problems.add(`${path}.wholesalePlanId`, `repeats ${raw.wholesalePlanId}`);
    const sharing = [...plans.values()].find((p) => p.primaryBucketRefId === raw.primaryBucketRefId);
    // The plan follows a SwapPrimaryBucket, so a primary bucket must name one plan.
    if (sharing) problems.add(`${path}.primaryBucketRefId`, `is already the primary bucket of ${sharing.wholesalePlanId}`);
    if (raw.billCycleTimeZone !== undefined && !isTimeZone(raw.billCycleTimeZone)) problems.add(`${path}.billCycleTimeZone`, 'must be an IANA time zone name (e.g. America/New_York)');
    const plan: PlanDefinition = { wholesalePlanId: raw.wholesalePlanId, name: raw.name, primaryBucketRefId: raw.primaryBucketRefId };
    if (typeof raw.billCycleTimeZone === 'string') plan.billCycleTimeZone = raw.billCycleTimeZone;
    plans.set(raw.wholesalePlanId, plan);
  });
  const purchasedCredit = checkPurchasedCredit(problems, document.purchasedCredit);
  if (!problems.ok) throw new CatalogError(problems.list);
  return { plans, buckets, purchasedCredit };
}

/** The subBalanceTypes whose purchased credit carries over at renewal (the renewal script's `carryOver`). */
export const carryOverTypesOf = (catalog: Catalog): string[] => [...catalog.purchasedCredit].filter(([, rule]) => rule.carryOver).map(([type]) => type);

/** How long a top-up lasts, by subBalanceType, for the types whose purchased credit expires. */
export const creditValidityOf = (catalog: Catalog): Record<string, Validity> =>
  Object.fromEntries([...catalog.purchasedCredit].flatMap(([type, rule]) => (rule.validity ? [[type, rule.validity]] : [])));

/** The plan whose primary bucket this is (at most one, buildCatalog makes sure): the plan after a swap to it. */
export const planOfPrimaryBucket = (catalog: Catalog, bucketRefId: string): PlanDefinition | undefined => [...catalog.plans.values()].find((p) => p.primaryBucketRefId === bucketRefId);
