import type { Amounts, ChangeKind, SubBalanceChange } from '../../domain/balance/model';
import type { LedgerEntry } from '../../domain/balance/outcome';
import { checkRecordFormat } from './record-format';

/**
 * Reading the ledger as stored in Redis (written only by appendLedger in scripts/lib/balance/): one
 * entry per operation,
 *
 *   at|operation|c1;c2;...|correlationId
 *
 * correlationId last, so it may hold any character: it is everything after the third `|`. Each change is
 * comma-separated positional fields, empty = absent (trailing empty ones are left out):
 *
 *   change,seq,bucketRefId,subBalanceType,unitType,quantity,
 *   before.remaining,before.allocated,before.rollover,after.remaining,after.allocated,after.rollover,
 *   before.purchased,after.purchased,validFrom,validUntil,purchasedUntil[,format]
 *
 * format (record-format.ts) is on one change of an entry, its longest: entries without one are format 1,
 * the same layout. A purchased amount is empty when 0 (and entries written before purchased credit have none); the dates
 * (billing epoch ms: a dated bucket's validity, the purchased credit's end) are the sub-balance's after the
 * change, empty when it has none. A Created
 * sub-balance is full with no rollover, so its after part may be the allocation alone (`,,allocated`):
 * remaining = allocated, rollover 0.
 *
 * Quantities are milli-units. Every number from quantity on may end in `k` for three zeros (a whole unit:
 * 5000 is written 5k; entries written before have none): read with milliOf. The catalog keeps `|`, `,`
 * and `;` out of bucketRefId; subBalanceType, unitType and the operation names are known values without them.
 */
/** A number of the ledger's and the records' rows: `k` at its end stands for three zeros (kiloZeros in scripts/lib/balance/4-ledger.lua). */
export const milliOf = (text: string | undefined): number => (text?.endsWith('k') ? Number(text.slice(0, -1)) * 1000 : Number(text));

const amounts = (fields: string[], from: number, purchasedAt: number): Amounts | undefined => {
  const [remaining = '', allocated = '', rollover = ''] = fields.slice(from, from + 3);
  if (remaining === '' && allocated === '' && rollover === '') return undefined;
  return { remaining: milliOf(remaining), allocated: milliOf(allocated), rollover: milliOf(rollover), purchased: milliOf(fields[purchasedAt] || '0') };
};

/** One stored entry (one operation) as its changes, in the order the operation made them. */
export function decodeLedgerEntry(stored: string, gpsi: string): LedgerEntry[] {
  const first = stored.indexOf('|');
  const second = stored.indexOf('|', first + 1);
  const third = stored.indexOf('|', second + 1);
  if (first < 0 || second < 0 || third < 0) throw new Error(`ledger entry of ${gpsi} is not at|operation|changes|correlationId`);
  const at = stored.slice(0, first);
  const operation = stored.slice(first + 1, second);
  const changes = stored.slice(second + 1, third);
  const correlationId = stored.slice(third + 1);
  if (changes === '') return [];
  return changes.split(';').map((text) => ({ ...decodeLedgerChange(text, gpsi), at, correlationId, operation }));
}

/** The field of a change that names its entry's format, when it is the one change that carries it. */
const FORMAT_AT = 17;

/**
 * One change in the ledger's positional layout. The scripts' outcomes carry their changes in it too
 * (changeRows, scripts/lib/balance/ `success`): a third of the bytes of the same change as JSON.
 */
export function decodeLedgerChange(text: string, gpsi: string): SubBalanceChange {
  const f = text.split(',');
  checkRecordFormat(f[FORMAT_AT], 'ledger entry');
  const change: SubBalanceChange = {
    change: f[0] as ChangeKind,
    subBalanceInstId: `${gpsi}-${f[1]}`,
    bucketRefId: f[2] ?? '',
    subBalanceType: f[3] ?? '',
    unitType: f[4] ?? '',
  };
  if (f[5]) change.quantity = milliOf(f[5]);
  const before = amounts(f, 6, 12);
  const after = f[0] === 'Created' && !f[9] && f[10] ? { remaining: milliOf(f[10]), allocated: milliOf(f[10]), rollover: 0, purchased: 0 } : amounts(f, 9, 13);
  if (before) change.before = before;
  if (after) change.after = after;
  if (f[15]) change.validFor = { start: milliOf(f[14]), end: milliOf(f[15]) };
  if (f[16]) change.purchasedUntil = milliOf(f[16]);
  return change;
}

/** The newest `limit` changes of stored entries (newest first): each operation's changes last to first. */
export function ledgerHistory(stored: readonly string[], gpsi: string, limit: number): LedgerEntry[] {
  return stored.flatMap((entry) => decodeLedgerEntry(entry, gpsi).reverse()).slice(0, limit);
}
