/**
 * The format the balance side's stored records are written in: FORMAT in scripts/lib/balance/1-subscription.lua
 * (a unit test keeps the two equal). Each record names it — `v` in a JSON record and in the subscription
 * and balances hashes, the 18th field of one change of a ledger entry — and no marker is format 1, the
 * layout of the release before, which format 2 keeps. A worker reads every format up to its own and stops
 * on a newer one instead of misreading it: during a rolling restart the newer workers answer.
 */
export const RECORD_FORMAT = 2;

/** The field or key that names a record's format. */
export const FORMAT_FIELD = 'v';

/** Throws on a record of a format newer than this worker reads; absent and older formats pass. */
export function checkRecordFormat(marker: unknown, what: string): void {
  if (marker === undefined || marker === null || marker === '') return;
  const format = Number(marker);
  if (!Number.isInteger(format) || format < 1 || format > RECORD_FORMAT) {
    throw new Error(`stored ${what} of format ${typeof marker === 'string' ? marker : JSON.stringify(marker)}: newer than this worker reads (up to ${RECORD_FORMAT})`);
  }
}
