import { DEFAULT_BILL_CYCLE_TIME_ZONE, instantOfWallClock, wallClockOf } from './bill-cycle';
import type { Milli } from './units';

/**
 * Validity periods, pure (TMF654 `validFor`). The catalog gives a duration — whole days of 24 hours, or
 * bill cycles (calendar months in the subscription's bill cycle time zone, at the same local time, the
 * day kept or clamped to the month's last) — and a bucket or a purchase gets a period from the moment it
 * is added (billing time) to that moment plus the duration. The scheduler expires it at the end.
 */
export type Validity = { days: number } | { cycles: number };

/** A period in billing time, epoch ms: from start (included) to end (excluded: at end it has expired). */
export interface ValidFor {
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;

/** Adds whole calendar months to an instant in a zone, keeping the local time; the 31st becomes the month's last day. */
function addLocalMonths(startMs: number, months: number, timeZone: string): number {
  const wall = new Date(wallClockOf(startMs, timeZone));
  const month = wall.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(wall.getUTCFullYear(), month + 1, 0)).getUTCDate();
  const timeOfDay = wall.getTime() - Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate());
  const target = Date.UTC(wall.getUTCFullYear(), month, Math.min(wall.getUTCDate(), lastDay)) + timeOfDay;
  return instantOfWallClock(target, timeZone);
}

/** The end of a validity starting at `startMs` (billing time) for a subscription whose cycles run in `timeZone`. */
export function validityEnd(startMs: number, validity: Validity, timeZone = DEFAULT_BILL_CYCLE_TIME_ZONE): number {
  if ('days' in validity) return startMs + validity.days * DAY_MS;
  return addLocalMonths(startMs, validity.cycles, timeZone);
}

export const validForOf = (startMs: number, validity: Validity, timeZone?: string): ValidFor => ({ start: startMs, end: validityEnd(startMs, validity, timeZone) });

/** Whether a validity needs the subscription's time zone (cycles do, days do not). */
export const needsTimeZone = (validity: Validity | undefined): boolean => validity !== undefined && 'cycles' in validity;

/**
 * The validity end of purchased credit after a top-up lasting until `end` (undefined: a type whose credit
 * does not expire): the later of the two, so a top-up extends the credit already held — one end date per
 * sub-balance, as prepaid validity extension — and credit that never expires keeps never expiring.
 */
export function purchasedUntilAfterTopUp(held: { purchased: Milli; purchasedUntil?: number }, end: number | undefined): number | undefined {
  const heldEnd = held.purchased > 0 ? (held.purchasedUntil ?? Infinity) : -Infinity;
  const next = Math.max(heldEnd, end ?? Infinity);
  return Number.isFinite(next) ? next : undefined;
}
