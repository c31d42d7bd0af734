// Due dates. US simple ports have a one-business-day interval: the desired due date is the submission time
// moved forward by the configured number of business days (Saturday and Sunday skipped, in UTC).

const isWeekend = (date: Date): boolean => date.getUTCDay() === 0 || date.getUTCDay() === 6;

export function addBusinessDays(from: Date, days: number): Date {
  const due = new Date(from.getTime());
  let left = days;
  while (left > 0) {
    due.setUTCDate(due.getUTCDate() + 1);
    if (!isWeekend(due)) left -= 1;
  }
  while (isWeekend(due)) due.setUTCDate(due.getUTCDate() + 1);
  return due;
}

export const desiredDueDate = (submittedAt: Date, intervalBusinessDays: number): string => addBusinessDays(submittedAt, intervalBusinessDays).toISOString();

/** What a due date the partner asks for must respect, seen from `now` (the command's time). */
export interface DueDateRules {
  now: Date;
  intervalBusinessDays: number;
  /** How far ahead a due date may be asked for, in calendar days. */
  maxDaysAhead: number;
}

/** ISO 8601 date-time with seconds optional and a zone (Z or ±hh:mm): a due date means one moment. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
export const DATE_TIME_TEXT = 'an ISO 8601 date-time with a zone, e.g. 2026-03-06T15:00:00Z';

/** A well-formed date-time of a day that exists (Date.parse would roll 30 February over into March). */
export function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && !Number.isNaN(Date.parse(value));
}

/**
 * Why a requested due date (already a valid date-time) cannot be asked for, or undefined: it must fall on a
 * business day, no earlier than the earliest allowed (the configured interval from now, as the FCC's
 * one-business-day simple port) and not beyond the furthest.
 */
export function dueDateProblem(requested: string, rules: DueDateRules): string | undefined {
  const at = new Date(requested);
  const earliest = addBusinessDays(rules.now, rules.intervalBusinessDays);
  const latest = new Date(rules.now.getTime() + rules.maxDaysAhead * 24 * 3600 * 1000);
  if (isWeekend(at)) return 'must fall on a business day (Monday to Friday, UTC)';
  if (at.getTime() < earliest.getTime()) return `must be no earlier than ${earliest.toISOString()} (${rules.intervalBusinessDays} business day(s) from now)`;
  if (at.getTime() > latest.getTime()) return `must be no later than ${latest.toISOString()} (${rules.maxDaysAhead} days from now)`;
  return undefined;
}

/** The bill cycle start day when the partner gives none: the day of submission, at most 28 (every month has it). */
export const defaultBillCycleStartDay = (submittedAt: Date): number => Math.min(submittedAt.getUTCDate(), 28);
