/**
 * Bill cycles, pure. billCycleFrequency MONTHLY (the only value the spec allows) with billCycleStartDay
 * 1..28: a cycle starts at 00:00 UTC on that day of every month. Days stop at 28 so every month has one.
 * A subscription activated mid-cycle keeps its full allowance until the next cycle start (no proration).
 */
export const BILL_CYCLE_FREQUENCIES = ['MONTHLY'] as const;
export type BillCycleFrequency = (typeof BILL_CYCLE_FREQUENCIES)[number];

const startOfCycleIn = (year: number, month: number, day: number): Date => new Date(Date.UTC(year, month, day));

/** The start of the cycle that contains `at`: the latest cycle start at or before it. */
export function cycleStartAtOrBefore(at: Date, billCycleStartDay: number): Date {
  const sameMonth = startOfCycleIn(at.getUTCFullYear(), at.getUTCMonth(), billCycleStartDay);
  if (sameMonth.getTime() <= at.getTime()) return sameMonth;
  return startOfCycleIn(at.getUTCFullYear(), at.getUTCMonth() - 1, billCycleStartDay);
}

/** The first cycle start strictly after `at`: when a subscription active at `at` is next renewed. */
export function nextCycleStart(at: Date, billCycleStartDay: number): Date {
  const current = cycleStartAtOrBefore(at, billCycleStartDay);
  return startOfCycleIn(current.getUTCFullYear(), current.getUTCMonth() + 1, billCycleStartDay);
}
