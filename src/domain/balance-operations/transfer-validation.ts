import { toMilli, type Milli } from '../balance/units';
import { Problems, checkString, checked, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';

/** Validation of TransferBalance, pure: every problem is listed at once. */
export interface TransferBalanceCommand {
  gpsi: string;
  subBalanceInstId: string;
  toGpsi: string;
  toSubBalanceInstId: string;
  amount: number;
}

export function checkTransfer(command: TransferBalanceCommand): Checked<{ subBalanceInstId: string; toGpsi: string; toSubBalanceInstId: string; amount: Milli }> {
  const problems = new Problems();
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  checkString(problems, 'subBalanceInstId', command.subBalanceInstId, { required: true, min: 1, max: 64 });
  if (checkString(problems, 'toGpsi', command.toGpsi, { ...GPSI, required: true }) && command.toGpsi === command.gpsi) problems.add('toGpsi', 'must be another subscription than gpsi');
  checkString(problems, 'toSubBalanceInstId', command.toSubBalanceInstId, { required: true, min: 1, max: 64 });
  const amount = toMilli(command.amount);
  if ('reason' in amount) problems.add('amount', amount.reason);
  const { subBalanceInstId, toGpsi, toSubBalanceInstId } = command;
  return checked(problems, { subBalanceInstId, toGpsi, toSubBalanceInstId, amount: 'milli' in amount ? amount.milli : 0 });
}
