import type { BucketDefinition, BucketKind, Catalog } from '../catalog/catalog';
import { ServiceError, type FieldProblem } from '../../errors/codes';
import { Problems, checkArray, checkInteger, checkString } from '../validation/problems';
import { GPSI, WHOLESALE_CUSTOMER_ID_BALANCE } from '../validation/spec-fields';
import type { BalanceAction, BalanceActionKind } from './model';
import { toMilli } from './units';

/** Validation of the balance commands (service-spec 2.9 and 2.10), pure: every problem is listed at once. */
export interface AddBucketsCommand { gpsi: string; bucketRefId: string[] }
export interface SwapPrimaryBucketCommand { gpsi: string; bucketRefId: string }
export interface CancelBucketsCommand { gpsi: string; bucketRefId: string[] }
export interface QueryBalancesCommand { gpsi: string }
export interface BalanceActionInput {
  subBalanceInstId: string;
  balanceType?: string | null;
  subBalanceType: string;
  action: string;
  quantity: number;
  unitType: string;
}
export interface UpdateBalancesCommand { gpsi: string; balances: BalanceActionInput[] }
export interface QueryBalanceHistoryCommand { gpsi: string; limit?: number | null }

export const BALANCE_TYPE_MAIN = 'Main';
export const BALANCE_ACTIONS: readonly BalanceActionKind[] = ['Add', 'Subtract'];
export const MAX_BUCKETS_PER_COMMAND = 20;
export const MAX_ACTIONS_PER_COMMAND = 100;
export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 500;
const BUCKET_REF_ID = { min: 1, max: 36 };
const TEXT = { required: true, min: 1, max: 64 };

const throwIfAny = (problems: Problems): void => {
  if (!problems.ok) throw ServiceError.badRequest(problems.list);
};

/** Checks the gpsi and the caller's wholesale customer, shared by every balance command. */
function subscriberProblems(gpsi: unknown, wholesaleCustomerId: string | undefined): Problems {
  const problems = new Problems();
  checkString(problems, 'gpsi', gpsi, { ...GPSI, required: true });
  if (wholesaleCustomerId === undefined) problems.add('wholesaleCustomerId', 'is required for balance operations (header)');
  else checkString(problems, 'wholesaleCustomerId', wholesaleCustomerId, WHOLESALE_CUSTOMER_ID_BALANCE);
  return problems;
}

export function validateSubscriberCommand(command: { gpsi: unknown }, wholesaleCustomerId: string | undefined): void {
  throwIfAny(subscriberProblems(command.gpsi, wholesaleCustomerId));
}

/** A bucket id with the path it came from in the command, for problems found later against the state. */
export interface LocatedId {
  id: string;
  path: string;
}

function bucketIds(problems: Problems, value: unknown): LocatedId[] {
  const items = checkArray(problems, 'bucketRefId', value, { required: true, minItems: 1, maxItems: MAX_BUCKETS_PER_COMMAND }) ?? [];
  return items
    .map((item, i) => ({ id: item as string, path: `bucketRefId[${i}]` }))
    .filter(({ id, path }) => checkString(problems, path, id, { ...BUCKET_REF_ID, required: true }));
}

const withArticle = (kind: BucketKind): string => (kind === 'ADDON' ? `an ${kind}` : `a ${kind}`);

/** Each named bucket must exist in the catalog and be of the expected kind. */
function catalogBuckets(problems: Problems, catalog: Catalog, ids: readonly LocatedId[], kind: BucketKind): BucketDefinition[] {
  const found: BucketDefinition[] = [];
  for (const { id, path } of ids) {
    const bucket = catalog.buckets.get(id);
    if (!bucket) problems.add(path, `names no bucket in the catalog (${id})`);
    else if (bucket.kind !== kind) problems.add(path, `names ${withArticle(bucket.kind)} bucket (${id}), not ${withArticle(kind)} one`);
    else found.push(bucket);
  }
  return found;
}

/** AddBuckets: every id an ADDON of the catalog; returns their definitions in command order (repeats kept). */
export function validateAddBuckets(command: AddBucketsCommand, wholesaleCustomerId: string | undefined, catalog: Catalog): BucketDefinition[] {
  const problems = subscriberProblems(command.gpsi, wholesaleCustomerId);
  const buckets = catalogBuckets(problems, catalog, bucketIds(problems, command.bucketRefId), 'ADDON');
  throwIfAny(problems);
  return buckets;
}

/** SwapPrimaryBucket: a single PRIMARY bucket of the catalog (whether it differs from the current one is state). */
export function validateSwapPrimary(command: SwapPrimaryBucketCommand, wholesaleCustomerId: string | undefined, catalog: Catalog): BucketDefinition {
  const problems = subscriberProblems(command.gpsi, wholesaleCustomerId);
  let bucket: BucketDefinition | undefined;
  if (checkString(problems, 'bucketRefId', command.bucketRefId, { ...BUCKET_REF_ID, required: true })) {
    [bucket] = catalogBuckets(problems, catalog, [{ id: command.bucketRefId, path: 'bucketRefId' }], 'PRIMARY');
  }
  throwIfAny(problems);
  return bucket!;
}

/** CancelBuckets: the distinct ids to cancel, first occurrence kept (whether the subscription has them is state). */
export function validateCancelBuckets(command: CancelBucketsCommand, wholesaleCustomerId: string | undefined): LocatedId[] {
  const problems = subscriberProblems(command.gpsi, wholesaleCustomerId);
  const ids = bucketIds(problems, command.bucketRefId);
  throwIfAny(problems);
  return ids.filter((item, i) => ids.findIndex((other) => other.id === item.id) === i);
}

export function validateHistory(command: QueryBalanceHistoryCommand, wholesaleCustomerId: string | undefined): number {
  const problems = subscriberProblems(command.gpsi, wholesaleCustomerId);
  checkInteger(problems, 'limit', command.limit, { min: 1, max: HISTORY_MAX_LIMIT });
  throwIfAny(problems);
  return command.limit ?? HISTORY_DEFAULT_LIMIT;
}

export interface ValidatedUpdate {
  /** Per command action: undefined when it cannot even be looked up (no usable id, type or unit). */
  actions: (BalanceAction | undefined)[];
  /** Problems of the actions' own fields; the subscription's checks add theirs before the verdict. */
  problems: FieldProblem[];
}

function validateAction(problems: Problems, path: string, raw: unknown): BalanceAction | undefined {
  if (typeof raw !== 'object' || raw === null) {
    problems.add(path, 'must be an object');
    return undefined;
  }
  const a = raw as Partial<Record<keyof BalanceActionInput, unknown>>;
  const usable = [
    checkString(problems, `${path}.subBalanceInstId`, a.subBalanceInstId, TEXT),
    checkString(problems, `${path}.subBalanceType`, a.subBalanceType, TEXT),
    checkString(problems, `${path}.unitType`, a.unitType, TEXT),
  ].every(Boolean);
  checkString(problems, `${path}.balanceType`, a.balanceType, { oneOf: [BALANCE_TYPE_MAIN] });
  const action = checkString(problems, `${path}.action`, a.action, { required: true, oneOf: BALANCE_ACTIONS }) ? (a.action as BalanceActionKind) : undefined;
  const quantity = toMilli(a.quantity);
  if ('reason' in quantity) problems.add(`${path}.quantity`, quantity.reason);
  if (!usable) return undefined;
  return {
    subBalanceInstId: a.subBalanceInstId as string,
    subBalanceType: a.subBalanceType as string,
    unitType: a.unitType as string,
    action,
    quantity: 'milli' in quantity ? quantity.milli : undefined,
  };
}

/**
 * UpdateBalances: throws for a bad gpsi, caller or list (nothing to check against the subscription); else
 * returns every action with the problems of their own fields, to be completed by the subscription's checks.
 */
export function validateUpdateBalances(command: UpdateBalancesCommand, wholesaleCustomerId: string | undefined): ValidatedUpdate {
  const problems = subscriberProblems(command.gpsi, wholesaleCustomerId);
  const items = checkArray(problems, 'balances', command.balances, { required: true, minItems: 1, maxItems: MAX_ACTIONS_PER_COMMAND });
  throwIfAny(problems);
  const actions = (items ?? []).map((raw, i) => validateAction(problems, `balances[${i}]`, raw));
  return { actions, problems: problems.list };
}
