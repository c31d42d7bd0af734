import { isErrorCode, ServiceError, type FieldProblem } from '../../contract/errors';
import type { Amounts, ChangeKind, ShownSubBalance, SubBalance, SubBalanceChange } from '../../domain/balance/model';
import { DEFAULT_BILL_CYCLE_TIME_ZONE } from '../../domain/balance/bill-cycle';
import { UNIT_BY_SUB_BALANCE_TYPE } from '../../domain/catalog/catalog';
import type { BalanceOutcome, SubscriptionFacts } from '../../domain/balance/outcome';
import type { ThresholdReached } from '../../domain/balance/thresholds';
import { decodeLedgerChange, milliOf } from './ledger-entry';
import { checkRecordFormat, FORMAT_FIELD } from './record-format';

/**
 * Decoding of what the Lua scripts return. Quantities arrive as decimal strings of milli-units; Lua's cjson
 * encodes an empty array as {} (it cannot tell them apart), hence `list`.
 */
type Raw = Record<string, unknown>;

const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
const int = (value: unknown): number => Number(value);
const optional = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A dated sub-balance's period and its purchased credit's end, as the scripts keep them (billing epoch ms). */
const dates = (raw: Raw): Pick<SubBalance, 'validFor' | 'purchasedUntil'> => ({
  ...(optional(raw.validUntil) ? { validFor: { start: int(raw.validFrom), end: int(raw.validUntil) } } : {}),
  ...(optional(raw.purchasedUntil) ? { purchasedUntil: int(raw.purchasedUntil) } : {}),
});

const amounts = (raw: unknown): Amounts | undefined => {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const a = raw as Raw;
  return { remaining: int(a.remaining), allocated: int(a.allocated), rollover: int(a.rollover), purchased: int(a.purchased ?? 0) };
};

export function decodeChange(raw: Raw): SubBalanceChange {
  const change: SubBalanceChange = {
    change: raw.change as ChangeKind,
    subBalanceInstId: String(raw.subBalanceInstId),
    bucketRefId: String(raw.bucketRefId),
    subBalanceType: String(raw.subBalanceType),
    unitType: String(raw.unitType),
  };
  if (raw.quantity !== undefined) change.quantity = int(raw.quantity);
  const before = amounts(raw.before);
  const after = amounts(raw.after);
  if (before) change.before = before;
  if (after) change.after = after;
  return { ...change, ...dates(raw) };
}

export function decodeSubBalance(raw: Raw): SubBalance {
  return {
    subBalanceInstId: String(raw.subBalanceInstId),
    bucketRefId: String(raw.bucketRefId),
    bucketKind: raw.bucketKind === 'PRIMARY' ? 'PRIMARY' : 'ADDON',
    subBalanceType: String(raw.subBalanceType),
    unitType: String(raw.unitType),
    allocated: int(raw.allocated),
    remaining: int(raw.remaining),
    rollover: int(raw.rollover),
    purchased: int(raw.purchased ?? 0),
    rolloverCap: int(raw.rolloverCap),
    endCycle: int(raw.endCycle),
    ...(optional(raw.alerted) ? { alertedPercent: int(raw.alerted) } : {}),
    ...dates(raw),
  };
}

/**
 * The positional fields of a sub-balance's value and of its dates field (scripts/lib/balance/,
 * loadBalances): bucketRefId|bucketKind|subBalanceType|unitType|allocated|remaining|rollover|rolloverCap|endCycle[|alerted[|firstCycle[|purchased]]]
 * and validFrom|validUntil|purchasedUntil; an empty field is absent. Read in one pass into the sub-balance
 * (every query and change decodes a whole subscription's rows: the worker's largest allocation of its own).
 */
const ALERTED = 9;
const PURCHASED = 11;
const present = (value: string | undefined): value is string => value !== undefined && value !== '';

function rowBalance(gpsi: string, seq: string, text: string): SubBalance {
  const v = text.split('|');
  const balance: SubBalance = {
    subBalanceInstId: `${gpsi}-${seq}`,
    bucketRefId: String(v[0]),
    bucketKind: v[1] === 'P' || v[1] === 'PRIMARY' ? 'PRIMARY' : 'ADDON',
    subBalanceType: String(v[2]),
    unitType: String(v[3]),
    allocated: Number(v[4]),
    remaining: Number(v[5]),
    rollover: Number(v[6]),
    purchased: present(v[PURCHASED]) ? Number(v[PURCHASED]) : 0,
    rolloverCap: Number(v[7]),
    endCycle: Number(v[8]),
  };
  if (present(v[ALERTED])) balance.alertedPercent = Number(v[ALERTED]);
  return balance;
}

function addDates(balance: SubBalance, text: string): void {
  const [validFrom, validUntil, purchasedUntil] = text.split('|');
  if (present(validUntil)) balance.validFor = { start: present(validFrom) ? Number(validFrom) : NaN, end: Number(validUntil) };
  if (present(purchasedUntil)) balance.purchasedUntil = Number(purchasedUntil);
}

/**
 * A balances-hash field's instance number and which of its fields it is: the row, its dates (`<seq>v`) or
 * the sum its reservations hold (`<seq>r`, 6-reservations.lua); undefined: not a sub-balance's (the owner mark).
 */
function fieldOf(name: string): { seq: string; part: 'row' | 'dates' | 'reserved' } | undefined {
  const last = name.charCodeAt(name.length - 1);
  const part = last === 118 ? 'dates' : last === 114 ? 'reserved' : 'row'; // v, r
  const digits = part === 'row' ? name.length : name.length - 1;
  if (digits === 0) return undefined;
  for (let i = 0; i < digits; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return { seq: part === 'row' ? name : name.slice(0, digits), part };
}

/** Collects a balances hash's fields, in any order, into its sub-balances in instance order. */
class BalanceRows {
  private readonly bySeq = new Map<string, SubBalance>();
  private readonly dated: [string, string][] = [];
  private readonly held: [string, string][] = [];

  constructor(private readonly gpsi: string) {}

  add(name: string, value: string): void {
    if (name === FORMAT_FIELD) return checkRecordFormat(value, 'balances hash');
    const field = fieldOf(name);
    if (!field) return;
    if (field.part === 'dates') this.dated.push([field.seq, value]);
    else if (field.part === 'reserved') this.held.push([field.seq, value]);
    else this.bySeq.set(field.seq, rowBalance(this.gpsi, field.seq, value));
  }

  balances(): SubBalance[] {
    for (const [seq, text] of this.dated) {
      const balance = this.bySeq.get(seq);
      if (balance) addDates(balance, text);
    }
    for (const [seq, text] of this.held) {
      const balance = this.bySeq.get(seq);
      if (balance) balance.reserved = Number(text);
    }
    const ordered = [...this.bySeq.entries()].sort(([a], [b]) => Number(a) - Number(b));
    return ordered.map(([, balance]) => balance);
  }
}

/**
 * The balances hash as the scripts return it (HGETALL: field, value, …), in the layout loadBalances reads:
 * field <seq> = positional text, field <seq>v = its dates; sub-balances in instance order.
 */
export function decodeBalanceRows(gpsi: string, flat: unknown): SubBalance[] {
  const fields = list<string>(flat);
  const rows = new BalanceRows(gpsi);
  for (let i = 0; i + 1 < fields.length; i += 2) rows.add(String(fields[i]), String(fields[i + 1]));
  return rows.balances();
}

/** The balances hash as HGETALL reads it outside a script (ioredis answers an object). */
export function decodeBalanceHash(gpsi: string, hash: Readonly<Record<string, string>>): SubBalance[] {
  const rows = new BalanceRows(gpsi);
  for (const name of Object.keys(hash)) rows.add(name, hash[name]);
  return rows.balances();
}

/**
 * A command record's balances (replyRows in scripts/lib/balance/): sub-balances joined by ';', each
 *   seq|bucketRefId|subBalanceType|allocated|remaining|rollover[|purchased[|validFrom|validUntil|purchasedUntil[|reserved]]]
 * with an empty field absent, an empty bucketRefId the row before's, and the unitType the subBalanceType's
 * (the catalog allows no other); in the hash's order, returned in instance order.
 */
export function decodeReplyRows(gpsi: string, text: string): ShownSubBalance[] {
  if (text === '') return [];
  let bucketRefId = '';
  const shown = text.split(';').map((row) => {
    const v = row.split('|');
    const subBalanceType = String(v[2]);
    if (present(v[1])) bucketRefId = v[1];
    const balance: ShownSubBalance = {
      subBalanceInstId: `${gpsi}-${v[0]}`,
      bucketRefId,
      subBalanceType,
      unitType: UNIT_BY_SUB_BALANCE_TYPE[subBalanceType] ?? '',
      allocated: milliOf(v[3]),
      remaining: milliOf(v[4]),
      rollover: milliOf(v[5]),
      purchased: present(v[6]) ? milliOf(v[6]) : 0,
    };
    if (present(v[8])) balance.validFor = { start: present(v[7]) ? Number(v[7]) : NaN, end: Number(v[8]) };
    if (present(v[9])) balance.purchasedUntil = Number(v[9]);
    if (present(v[10])) balance.reserved = milliOf(v[10]);
    return { seq: Number(v[0]), balance };
  });
  return shown.sort((a, b) => a.seq - b.seq).map(({ balance }) => balance);
}

/** A command record's change of a sub-balance its rows show names it by them (ledgerChange's `shown`). */
function namedByRows(changes: SubBalanceChange[], balances: readonly ShownSubBalance[]): SubBalanceChange[] {
  for (const change of changes) {
    if (change.bucketRefId !== '') continue;
    const shown = balances.find((b) => b.subBalanceInstId === change.subBalanceInstId);
    if (shown) Object.assign(change, { bucketRefId: shown.bucketRefId, subBalanceType: shown.subBalanceType, unitType: shown.unitType });
  }
  return changes;
}

/** An outcome's or a query's balances: the hash's rows, or (records written before them) JSON objects. */
export const decodeBalances = (raw: Raw, gpsi: string): SubBalance[] =>
  raw.b !== undefined ? decodeBalanceRows(gpsi, raw.b) : raw.balanceRows !== undefined ? decodeBalanceRows(gpsi, raw.balanceRows) : list<Raw>(raw.balances).map(decodeSubBalance);

const decodeThreshold = (raw: Raw): ThresholdReached => ({
  subBalanceInstId: String(raw.subBalanceInstId),
  bucketRefId: String(raw.bucketRefId),
  subBalanceType: String(raw.subBalanceType),
  unitType: String(raw.unitType),
  percent: int(raw.percent),
  amounts: amounts(raw.amounts)!,
});

/** The facts' fields in the order the scripts return their values (FACT_FIELDS in scripts/lib/balance/). */
const FACT_FIELDS = [
  'gpsi',
  'subscriptionId',
  'subscriberId',
  'wholesaleCustomerId',
  'wholesalePlanId',
  'primaryBucketRefId',
  'billCycleFrequency',
  'billCycleStartDay',
  'billCycleTimeZone',
  'cycleNo',
  'cycleStart',
  'nextRenewalAt',
  'status',
];

/** Positional facts (false: absent) as the named object records written before them held. */
function namedFacts(values: unknown[]): Raw {
  const raw: Raw = {};
  // Absent: false in a script's JSON, null in a Redis array.
  for (let i = 0; i < FACT_FIELDS.length; i++) if (values[i] !== false && values[i] !== null && values[i] !== undefined) raw[FACT_FIELDS[i]] = values[i];
  return raw;
}

export function decodeFacts(given: unknown): SubscriptionFacts {
  const raw = Array.isArray(given) ? namedFacts(given) : (given as Raw);
  const facts: SubscriptionFacts = {
    gpsi: String(raw.gpsi),
    subscriptionId: String(raw.subscriptionId),
    subscriberId: String(raw.subscriberId),
    wholesaleCustomerId: String(raw.wholesaleCustomerId),
    wholesalePlanId: String(raw.wholesalePlanId),
    billCycleFrequency: String(raw.billCycleFrequency),
    billCycleStartDay: int(raw.billCycleStartDay),
    billCycleTimeZone: optional(raw.billCycleTimeZone) ?? DEFAULT_BILL_CYCLE_TIME_ZONE,
    status: String(raw.status),
  };
  const primary = optional(raw.primaryBucketRefId);
  if (primary) facts.primaryBucketRefId = primary;
  if (optional(raw.cycleNo)) facts.cycleNo = int(raw.cycleNo);
  const cycleStart = optional(raw.cycleStart);
  const nextRenewalAt = optional(raw.nextRenewalAt);
  if (cycleStart) facts.cycleStart = cycleStart;
  if (nextRenewalAt) facts.nextRenewalAt = nextRenewalAt;
  return facts;
}

/** Index of the action a problem path names (`balances[3].quantity` → 3), so problems read in command order. */
const actionIndex = (path: string): number => Number(/^\w+\[(\d+)\]/.exec(path)?.[1] ?? -1);

/** The error an outcome records, as the ServiceError to answer with; problems sorted by action. */
function recordedError(raw: Raw): ServiceError {
  const code = String(raw.code);
  const problems = list<FieldProblem>(raw.problems)
    .map((p, i) => ({ p, i }))
    .sort((a, b) => actionIndex(a.p.path) - actionIndex(b.p.path) || a.i - b.i)
    .map(({ p }) => ({ path: String(p.path), reason: String(p.reason) }));
  return new ServiceError(isErrorCode(code) ? code : 'INTERNAL', String(raw.message), problems);
}

/** The command whose own record is read: its ids and number are not kept in the record (scripts/lib/balance/, commandRecord). */
export interface RecordingCommand {
  gpsi: string;
  correlationId: string;
  commandId: string;
}

/**
 * A command record's facts (`f`: subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId, then
 * cycleNo and cycleStart when it reached thresholds) over the subscription's as they are now (`current`,
 * positional as FACT_FIELDS, answered beside the record): what the record keeps is what its events show.
 */
function recordedFacts(recorded: unknown[], gpsi: string | undefined, current: unknown): SubscriptionFacts {
  const facts = decodeFacts(Array.isArray(current) ? current : []);
  if (gpsi !== undefined) facts.gpsi = gpsi;
  const [subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId, cycleNo, cycleStart] = recorded;
  Object.assign(facts, { subscriptionId: String(subscriptionId), subscriberId: String(subscriberId), wholesaleCustomerId: String(wholesaleCustomerId), wholesalePlanId: String(wholesalePlanId) });
  if (optional(cycleNo)) facts.cycleNo = int(cycleNo);
  if (optional(cycleStart)) facts.cycleStart = String(cycleStart);
  return facts;
}

/**
 * Parses a script's JSON outcome; a recorded refusal is thrown as its ServiceError. `current`: the
 * subscription's facts now, which a command record's script answers beside it (commandRecord).
 */
export function decodeOutcome(json: string, replayed: boolean, command?: RecordingCommand, current?: unknown): BalanceOutcome {
  const raw = JSON.parse(json) as Raw;
  checkRecordFormat(raw[FORMAT_FIELD], 'balance record');
  if (raw.error) throw recordedError(raw.error as Raw);
  const subscription = raw.f !== undefined ? recordedFacts(list(raw.f), command?.gpsi, current) : decodeFacts(raw.s ?? raw.subscription);
  const balances = typeof raw.r === 'string' ? decodeReplyRows(subscription.gpsi, raw.r) : decodeBalances(raw, subscription.gpsi);
  const changes =
    (raw.c ?? raw.changeRows) !== undefined ? list<string>(raw.c ?? raw.changeRows).map((row) => decodeLedgerChange(String(row), subscription.gpsi)) : list<Raw>(raw.changes).map(decodeChange);
  const outcome: BalanceOutcome = {
    at: raw.t !== undefined ? new Date(Number(raw.t)).toISOString() : String(raw.at),
    correlationId: String((raw.correlationId as string | undefined) ?? command?.correlationId),
    subscription,
    changes: typeof raw.r === 'string' ? namedByRows(changes, balances) : changes,
    balances,
    replayed,
  };
  const causeId = optional(raw.causeId) ?? optional(raw.commandId) ?? command?.commandId;
  if (causeId) outcome.causeId = causeId;
  if (raw.bucketRefIds !== undefined) outcome.bucketRefIds = list<string>(raw.bucketRefIds);
  if (raw.thresholds !== undefined) outcome.thresholds = list<Raw>(raw.thresholds).map(decodeThreshold);
  for (const field of ['fromBucketRefId', 'toBucketRefId', 'fromWholesalePlanId', 'reason', 'expiredAt'] as const) {
    const value = optional(raw[field]);
    if (value) outcome[field] = value;
  }
  return outcome;
}

/** Parses the read-only answers (query, history): a refusal is thrown, else the raw object is returned. */
export function decodeRead(json: string): Raw {
  const raw = JSON.parse(json) as Raw;
  if (raw.error) throw recordedError(raw.error as Raw);
  return raw;
}
