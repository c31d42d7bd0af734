import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { balanceEvent, deterministicId, wireChange } from '../../domain/balance/billing-events';
import { fromMilli } from '../../domain/balance/units';
import { accept } from '../../domain/balance/validation';
import { checkTransfer, type TransferBalanceCommand } from '../../domain/balance-operations/transfer-validation';
import { commandMeta, wireBalances } from '../balance/replies';
import type { TransferStore } from './ports';

/**
 * TransferBalance, all or nothing and exactly once although the two numbers live in different Redis Cluster
 * slots: the debit on the source (recorded with the command's outcome, under the command id, which is the
 * transfer's id), the credit on the target, then the settlement on the source — completed, or reversed when
 * the target refused. Each step is idempotent under the transfer id, so a worker that takes the command
 * over after another died at any point (Kafka redelivers it: its offset is committed only after the reply)
 * runs all three again and each does its part once.
 */
export const createTransferBalance =
  (deps: { transfers: TransferStore }): Handler<TransferBalanceCommand> =>
  async (command, context) => {
    const t = accept(checkTransfer(command), context.wholesaleCustomerId);
    const meta = commandMeta(command.gpsi, context);
    const debit = await deps.transfers.debit(meta, { subBalanceInstId: t.subBalanceInstId, amount: t.amount });
    const taken = debit.changes[0];
    const credit = await deps.transfers.credit(meta, t.toGpsi, { subBalanceInstId: t.toSubBalanceInstId, subBalanceType: taken.subBalanceType, unitType: taken.unitType, amount: t.amount });
    const state = await deps.transfers.settle(meta, credit.credited);
    if (state === 'reversed' || !credit.credited) {
      const reason = credit.credited ? 'the target refused it' : credit.reason;
      throw new ServiceError('CONFLICT', `Transfer ${context.commandId} was reversed: ${reason}`, [{ path: 'toSubBalanceInstId', reason }]);
    }
    const shown = { transferId: context.commandId, toGpsi: t.toGpsi, amount: fromMilli(t.amount) };
    const event = balanceEvent('BalanceTransferred', debit, deterministicId(`${context.commandId}/BalanceTransferred`), { ...shown, changes: [taken, credit.change].map(wireChange) });
    return { reply: { status: 'Success', ...shown, balances: wireBalances(debit.balances) }, messages: [event], replayed: debit.replayed };
  };
