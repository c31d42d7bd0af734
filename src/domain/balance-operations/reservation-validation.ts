import { Problems, checkInteger, checkString, checked, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';
import { toMilli, type Milli } from '../balance/units';

/** Validation of the reservation commands, pure: every problem is listed at once. */
export interface ReserveBalanceCommand {
  gpsi: string;
  reservationId: string;
  subBalanceInstId: string;
  amount: number;
  ttlSeconds: number;
}
export interface CommitReservationCommand {
  gpsi: string;
  reservationId: string;
  usedAmount: number;
}
export interface ReleaseReservationCommand {
  gpsi: string;
  reservationId: string;
}

/** Longest hold: a charging session's reservation is renewed by a new one, not held for days. */
export const MAX_RESERVATION_TTL_SECONDS = 86_400;
/** Kept in the stored reservation's `|`-separated text and in Redis field names: no separators. */
const RESERVATION_ID = { required: true, min: 1, max: 64, pattern: /^[A-Za-z0-9._:-]+$/, patternText: 'letters, digits, . _ : -' };

export interface ValidReservation {
  reservationId: string;
  subBalanceInstId: string;
  amount: Milli;
  ttlSeconds: number;
}

function common(command: { gpsi: unknown; reservationId: unknown }): Problems {
  const problems = new Problems();
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  checkString(problems, 'reservationId', command.reservationId, RESERVATION_ID);
  return problems;
}

export function checkReserve(command: ReserveBalanceCommand): Checked<ValidReservation> {
  const problems = common(command);
  checkString(problems, 'subBalanceInstId', command.subBalanceInstId, { required: true, min: 1, max: 64 });
  const amount = toMilli(command.amount);
  if ('reason' in amount) problems.add('amount', amount.reason);
  checkInteger(problems, 'ttlSeconds', command.ttlSeconds, { required: true, min: 1, max: MAX_RESERVATION_TTL_SECONDS });
  const { reservationId, subBalanceInstId, ttlSeconds } = command;
  return checked(problems, { reservationId, subBalanceInstId, ttlSeconds, amount: 'milli' in amount ? amount.milli : 0 });
}

/** CommitReservation: the amount used may be zero (nothing used: the whole hold is released). */
export function checkCommit(command: CommitReservationCommand): Checked<{ reservationId: string; used: Milli }> {
  const problems = common(command);
  const used = command.usedAmount === 0 ? { milli: 0 } : toMilli(command.usedAmount);
  if ('reason' in used) problems.add('usedAmount', used.reason === 'must be greater than zero' ? 'must be zero or more' : used.reason);
  return checked(problems, { reservationId: command.reservationId, used: 'milli' in used ? used.milli : 0 });
}

export const checkRelease = (command: ReleaseReservationCommand): Checked<{ reservationId: string }> => checked(common(command), { reservationId: command.reservationId });
