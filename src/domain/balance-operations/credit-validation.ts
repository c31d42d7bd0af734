import { sha256Hex } from '../digest';
import { toMilli } from '../balance/units';
import type { BalanceAction } from '../balance/model';
import { Problems, checkString, checked, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';

/** Validation of TopupBalance and AdjustBalance, pure: every problem is listed at once. */
interface Target {
  gpsi: string;
  subBalanceInstId: string;
  subBalanceType: string;
  unitType: string;
  amount: number;
}
export interface TopupBalanceCommand extends Target {
  reference: string;
  referenceType: string;
}
export interface AdjustBalanceCommand extends Target {
  action: string;
  reasonCode: string;
  note?: string | null;
}

export const REFERENCE_TYPES = ['PAYMENT', 'VOUCHER'] as const;
export const ADJUST_ACTIONS = ['Credit', 'Debit'] as const;
export const REASON_CODES = ['CUSTOMER_CARE', 'GOODWILL', 'CORRECTION'] as const;
const TEXT = { required: true, min: 1, max: 64 };
const REFERENCE = { ...TEXT, pattern: /^[A-Za-z0-9._:-]+$/, patternText: 'letters, digits, . _ : -' };

/** The sub-balance and amount, as one UpdateBalances action (the store checks them against the subscription). */
function targetAction(problems: Problems, command: Target, action: BalanceAction['action']): BalanceAction {
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  for (const field of ['subBalanceInstId', 'subBalanceType', 'unitType'] as const) checkString(problems, field, command[field], TEXT);
  const amount = toMilli(command.amount);
  if ('reason' in amount) problems.add('amount', amount.reason);
  const { subBalanceInstId, subBalanceType, unitType } = command;
  return { subBalanceInstId, subBalanceType, unitType, action, quantity: 'milli' in amount ? amount.milli : undefined };
}

export function checkTopup(command: TopupBalanceCommand): Checked<{ action: BalanceAction; reference: string; referenceType: string }> {
  const problems = new Problems();
  const action = targetAction(problems, command, 'Add');
  checkString(problems, 'reference', command.reference, REFERENCE);
  checkString(problems, 'referenceType', command.referenceType, { required: true, oneOf: REFERENCE_TYPES });
  return checked(problems, { action, reference: command.reference, referenceType: command.referenceType });
}

export function checkAdjust(command: AdjustBalanceCommand): Checked<{ action: BalanceAction; reasonCode: string; note: string | null }> {
  const problems = new Problems();
  const valid = checkString(problems, 'action', command.action, { required: true, oneOf: ADJUST_ACTIONS });
  const action = targetAction(problems, command, valid ? (command.action === 'Credit' ? 'Add' : 'Subtract') : undefined);
  checkString(problems, 'reasonCode', command.reasonCode, { required: true, oneOf: REASON_CODES });
  checkString(problems, 'note', command.note, { max: 200 });
  return checked(problems, { action, reasonCode: command.reasonCode, note: command.note ?? null });
}

/**
 * The identity a top-up is recorded under: its customer and reference, not its correlation id, so the same
 * payment or voucher sent again under any correlation id replays the first outcome (and another payload
 * under it is CONFLICT by its fingerprint), as a redelivered command does.
 */
export const topupCommandId = (wholesaleCustomerId: string, reference: string): string => sha256Hex(JSON.stringify([wholesaleCustomerId, 'TopupBalance', `reference:${reference}`])).slice(0, 32);
