/**
 * Due dates. US simple ports have a one-business-day interval: the desired due date is the submission time
 * moved forward by the configured number of business days (Saturday and Sunday skipped, in UTC).
 */
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

export const desiredDueDate = (submittedAt: Date, intervalBusinessDays: number): string =>
  addBusinessDays(submittedAt, intervalBusinessDays).toISOString();

/** The bill cycle start day when the partner gives none: the day of submission, at most 28 (every month has it). */
export const defaultBillCycleStartDay = (submittedAt: Date): number => Math.min(submittedAt.getUTCDate(), 28);
