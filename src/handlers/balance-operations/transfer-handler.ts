import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { accept } from '../../domain/balance/validation';
import { checkTransfer, type TransferBalanceCommand } from '../../domain/balance-operations/transfer-validation';
import { commandMeta, wireBalances } from '../balance/replies';
import type { TransferStore } from './ports';
import { runTransfer, transferShown } from './transfer-steps';

/**
 * TransferBalance, all or nothing and exactly once although the two numbers live in different Redis Cluster
 * slots: the debit on the source (recorded with the command's outcome, under the command id, which is the
 * transfer's id), the credit on the target, then the settlement on the source — completed, or reversed when
 * the target refused. Each step is idempotent under the transfer id, so a worker that takes the command
 * over after another died at any point (Kafka redelivers it: its offset is committed only after the reply)
 * runs all three again and each does its part once; a transfer whose command never comes back is finished
 * by the pending-transfer sweeper (src/schedulers/transfer-sweeper.ts).
 */
export const createTransferBalance =
  (deps: { transfers: TransferStore }): Handler<TransferBalanceCommand> =>
  async (command, context) => {
    const order = accept(checkTransfer(command), context.wholesaleCustomerId);
    const meta = commandMeta(command.gpsi, context);
    const result = await runTransfer(deps.transfers, meta, order);
    if (result.state === 'reversed') {
      await deps.transfers.unnote(meta, order);
      // the amount is back on the source: CONFLICT, with TransferReversed published beside it
      throw new ServiceError('CONFLICT', `Transfer ${context.commandId} was reversed: ${result.reason}`, [{ path: 'toSubBalanceInstId', reason: result.reason }], [result.event]);
    }
    return {
      reply: { status: 'Success', ...transferShown(context.commandId, order), balances: wireBalances(result.debit.balances) },
      messages: [result.event],
      replayed: result.debit.replayed,
    };
  };
