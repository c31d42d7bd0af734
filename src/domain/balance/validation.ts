import { planOfPrimaryBucket, type BucketDefinition, type BucketKind, type Catalog, type PlanDefinition } from '../catalog/catalog';
import { ServiceError, type FieldProblem } from '../../contract/errors';
import { Problems, checkArray, checkInteger, checkString, checked, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';
import type { BalanceAction, BalanceActionKind } from './model';
import { toMilli } from './units';

/** Validation of the balance commands (service-spec 2.9 and 2.10), pure: every problem is listed at once. */
export interface AddBucketsCommand {
  gpsi: string;
  bucketRefId: string[];
}
export interface SwapPrimaryBucketCommand {
  gpsi: string;
  bucketRefId: string;
}
export interface CancelBucketsCommand {
  gpsi: string;
  bucketRefId: string[];
}
export interface QueryBalancesCommand {
  gpsi: string;
}
export interface BalanceActionInput {
  subBalanceInstId: string;
  balanceType?: string | null;
  subBalanceType: string;
  action: string;
  quantity: number;
  unitType: string;
}
export interface UpdateBalancesCommand {
  gpsi: string;
  balances: BalanceActionInput[];
}
export interface QueryBalanceHistoryCommand {
  gpsi: string;
  limit?: number | null;
  /** One subscription of the number: the live one, or an ended one (its id from SubscriptionPortedOut). */
  subscriptionId?: string | null;
}

export const BALANCE_TYPE_MAIN = 'Main';
export const BALANCE_ACTIONS: readonly BalanceActionKind[] = ['Add', 'Subtract'];
export const MAX_BUCKETS_PER_COMMAND = 20;
export const MAX_ACTIONS_PER_COMMAND = 100;
export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 500;
const BUCKET_REF_ID = { min: 1, max: 36 };
const TEXT = { required: true, min: 1, max: 64 };

export type { Checked } from '../validation/problems';

function gpsiProblems(gpsi: unknown): Problems {
  const problems = new Problems();
  checkString(problems, 'gpsi', gpsi, { ...GPSI, required: true });
  return problems;
}

/**
 * The handler's verdict: the command's problems plus the caller's. Balance operations need the wholesale
 * customer (its format is checked with the other headers by the worker); throws BAD_REQUEST listing all.
 */
export function accept<T>(result: Checked<T>, wholesaleCustomerId: string | undefined): T {
  const problems = [...result.problems];
  if (wholesaleCustomerId === undefined) problems.push({ path: 'headers.wholesaleCustomerId', reason: 'is required for balance operations' });
  if (problems.length > 0) throw ServiceError.badRequest(problems);
  return result.value;
}

export const checkQueryBalances = (command: QueryBalancesCommand): Checked<void> => checked(gpsiProblems(command.gpsi), undefined);

/** A bucket id with the path it came from in the command, for problems found later against the state. */
export interface LocatedId {
  id: string;
  path: string;
}

function bucketIds(problems: Problems, value: unknown): LocatedId[] {
  const items = checkArray(problems, 'bucketRefId', value, { required: true, minItems: 1, maxItems: MAX_BUCKETS_PER_COMMAND }) ?? [];
  return items.map((item, i) => ({ id: item as string, path: `bucketRefId[${i}]` })).filter(({ id, path }) => checkString(problems, path, id, { ...BUCKET_REF_ID, required: true }));
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

/** AddBuckets: every id an ADDON of the catalog; their definitions in command order (repeats kept). */
export function checkAddBuckets(command: AddBucketsCommand, catalog: Catalog): Checked<BucketDefinition[]> {
  const problems = gpsiProblems(command.gpsi);
  return checked(problems, catalogBuckets(problems, catalog, bucketIds(problems, command.bucketRefId), 'ADDON'));
}

const primaryIdOk = (problems: Problems, command: SwapPrimaryBucketCommand): boolean => checkString(problems, 'bucketRefId', command.bucketRefId, { ...BUCKET_REF_ID, required: true });

/** A well-formed bucket id that must name a PRIMARY bucket of the catalog a plan offers. */
function catalogPrimary(problems: Problems, catalog: Catalog, id: string): { bucket?: BucketDefinition; plan?: PlanDefinition } {
  const [bucket] = catalogBuckets(problems, catalog, [{ id, path: 'bucketRefId' }], 'PRIMARY');
  const plan = bucket && planOfPrimaryBucket(catalog, bucket.bucketRefId);
  if (bucket && !plan) problems.add('bucketRefId', `names a PRIMARY bucket (${bucket.bucketRefId}) that no plan offers`);
  return { bucket, plan };
}

/**
 * SwapPrimaryBucket: a single PRIMARY bucket of the catalog that a plan offers; the subscription moves to
 * that plan, so billing bills what the subscriber now has (whether it differs from the current one is state).
 */
export function checkSwapPrimary(command: SwapPrimaryBucketCommand, catalog: Catalog): Checked<{ bucket: BucketDefinition; plan: PlanDefinition }> {
  const problems = gpsiProblems(command.gpsi);
  const { bucket, plan } = primaryIdOk(problems, command) ? catalogPrimary(problems, catalog, command.bucketRefId) : {};
  return checked(problems, { bucket: bucket!, plan: plan! }); // defined whenever there is no problem
}

// AddBuckets and SwapPrimaryBucket in two parts: the form (the command alone) and what the catalog says of
// its well-formed ids (its situation: the catalog may change between a change applied and its redelivery,
// so these refuse only a change with nothing recorded). Together they are checkAddBuckets / checkSwapPrimary.

export function addBucketsForm(command: AddBucketsCommand): FieldProblem[] {
  const problems = gpsiProblems(command.gpsi);
  bucketIds(problems, command.bucketRefId);
  return problems.list;
}

export function addBucketsCatalogProblems(command: AddBucketsCommand, catalog: Catalog): FieldProblem[] {
  const problems = new Problems();
  catalogBuckets(problems, catalog, bucketIds(new Problems(), command.bucketRefId), 'ADDON');
  return problems.list;
}

export function swapPrimaryForm(command: SwapPrimaryBucketCommand): FieldProblem[] {
  const problems = gpsiProblems(command.gpsi);
  primaryIdOk(problems, command);
  return problems.list;
}

export function swapPrimaryCatalogProblems(command: SwapPrimaryBucketCommand, catalog: Catalog): FieldProblem[] {
  const problems = new Problems();
  if (primaryIdOk(new Problems(), command)) catalogPrimary(problems, catalog, command.bucketRefId);
  return problems.list;
}

/** CancelBuckets: the distinct ids to cancel, first occurrence kept (whether the subscription has them is state). */
export function checkCancelBuckets(command: CancelBucketsCommand): Checked<LocatedId[]> {
  const problems = gpsiProblems(command.gpsi);
  const ids = bucketIds(problems, command.bucketRefId);
  return checked(
    problems,
    ids.filter((item, i) => ids.findIndex((other) => other.id === item.id) === i),
  );
}

export function checkHistory(command: QueryBalanceHistoryCommand): Checked<number> {
  const problems = gpsiProblems(command.gpsi);
  checkInteger(problems, 'limit', command.limit, { min: 1, max: HISTORY_MAX_LIMIT });
  checkString(problems, 'subscriptionId', command.subscriptionId, { min: 1, max: 64 });
  return checked(problems, command.limit ?? HISTORY_DEFAULT_LIMIT);
}

export interface ValidatedUpdate {
  /** Per command action: undefined when it cannot even be looked up (no usable id, type or unit). */
  actions: (BalanceAction | undefined)[];
  /** Problems of the actions' own fields; the subscription's checks add theirs before the verdict. */
  problems: FieldProblem[];
}

function checkAction(problems: Problems, path: string, raw: unknown): BalanceAction | undefined {
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
 * UpdateBalances, first part: the gpsi and the list itself. With a problem here there is nothing to check
 * against the subscription; the actions' own fields are judged together with the subscription's checks.
 */
export function checkUpdateEnvelope(command: UpdateBalancesCommand): Checked<unknown[]> {
  const problems = gpsiProblems(command.gpsi);
  const items = checkArray(problems, 'balances', command.balances, { required: true, minItems: 1, maxItems: MAX_ACTIONS_PER_COMMAND });
  return checked(problems, items ?? []);
}

/** UpdateBalances, second part: every action with the problems of its own fields. */
export function checkUpdateActions(items: readonly unknown[]): ValidatedUpdate {
  const problems = new Problems();
  const actions = items.map((raw, i) => checkAction(problems, `balances[${i}]`, raw));
  return { actions, problems: problems.list };
}
