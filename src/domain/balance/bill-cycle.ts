// Bill cycles, pure. billCycleFrequency MONTHLY (the only value the spec allows) with billCycleStartDay
// 1..28: a cycle starts at the first instant (00:00 local) of that day of every month in the bill cycle
// time zone (an IANA name from the plan, default UTC). Days stop at 28 so every month has one. What a
// partial first cycle grants is the catalog's choice (seeds.ts); cycleDaysAt gives the days it has left.

export const BILL_CYCLE_FREQUENCIES = ['MONTHLY'] as const;
export type BillCycleFrequency = (typeof BILL_CYCLE_FREQUENCIES)[number];
export const DEFAULT_BILL_CYCLE_TIME_ZONE = 'UTC';

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when the runtime knows the IANA time zone name. */
export function isTimeZone(name: unknown): boolean {
  if (typeof name !== 'string' || name === '') return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time of an instant in a zone, as if that wall clock were UTC (epoch ms). */
export function wallClockOf(instantMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatterOf(timeZone).formatToParts(new Date(instantMs))) parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) + (instantMs % 1000);
}

const sameDay = (a: number, b: number): boolean => Math.floor(a / DAY_MS) === Math.floor(b / DAY_MS);

/**
 * The instant a wall-clock time (as if UTC, epoch ms) is reached in the zone: the earlier one when a DST
 * change repeats it, and when a change skips it the instant the gap ends at (the clock moved on by the gap).
 */
export function instantOfWallClock(wallMs: number, timeZone: string): number {
  const candidates = [wallMs - DAY_MS, wallMs + DAY_MS].map((probe) => wallMs - (wallClockOf(probe, timeZone) - probe));
  const exact = candidates.filter((instant) => wallClockOf(instant, timeZone) === wallMs);
  return exact.length > 0 ? Math.min(...exact) : Math.max(...candidates);
}

/**
 * The first instant of a local day (month may overflow, as in Date.UTC). Midnight is wall − offset with the
 * offset in force then: before or after a DST change within a day, so both are tried and the earliest
 * instant whose local date is that day wins — the first midnight when it happens twice, the end of the gap
 * when a change skips it.
 */
function startOfLocalDay(year: number, month: number, day: number, timeZone: string): Date {
  const wall = Date.UTC(year, month, day);
  const candidates = [wall - DAY_MS, wall + DAY_MS].map((probe) => wall - (wallClockOf(probe, timeZone) - probe)).filter((instant) => sameDay(wallClockOf(instant, timeZone), wall));
  return new Date(Math.min(...candidates));
}

/** Year and month (0-based) of an instant's local date in the zone. */
function localMonthOf(at: Date, timeZone: string): { year: number; month: number } {
  const wall = new Date(wallClockOf(at.getTime(), timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() };
}

/** The start of the cycle that contains `at`: the latest cycle start at or before it. */
export function cycleStartAtOrBefore(at: Date, billCycleStartDay: number, timeZone = DEFAULT_BILL_CYCLE_TIME_ZONE): Date {
  const { year, month } = localMonthOf(at, timeZone);
  const sameMonth = startOfLocalDay(year, month, billCycleStartDay, timeZone);
  if (sameMonth.getTime() <= at.getTime()) return sameMonth;
  return startOfLocalDay(year, month - 1, billCycleStartDay, timeZone);
}

/** The first cycle start strictly after `at`: when a subscription active at `at` is next renewed. */
export function nextCycleStart(at: Date, billCycleStartDay: number, timeZone = DEFAULT_BILL_CYCLE_TIME_ZONE): Date {
  const { year, month } = localMonthOf(cycleStartAtOrBefore(at, billCycleStartDay, timeZone), timeZone);
  return startOfLocalDay(year, month + 1, billCycleStartDay, timeZone);
}

/** Local calendar date of an instant in the zone, as a UTC midnight (epoch ms) for day arithmetic. */
function localDateMs(at: Date, timeZone: string): number {
  return Math.floor(wallClockOf(at.getTime(), timeZone) / DAY_MS) * DAY_MS;
}

/**
 * The days of the cycle containing `at` (calendar days in the zone) and those left from the local day of
 * `at` on, that day included: an activation on the cycle's first day leaves them all (a full cycle).
 */
export function cycleDaysAt(at: Date, billCycleStartDay: number, timeZone = DEFAULT_BILL_CYCLE_TIME_ZONE): { daysLeft: number; daysInCycle: number } {
  const start = localDateMs(cycleStartAtOrBefore(at, billCycleStartDay, timeZone), timeZone);
  const next = localDateMs(nextCycleStart(at, billCycleStartDay, timeZone), timeZone);
  return { daysLeft: (next - localDateMs(at, timeZone)) / DAY_MS, daysInCycle: (next - start) / DAY_MS };
}
