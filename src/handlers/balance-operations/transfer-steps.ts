import type { OutgoingMessage } from '../../contract/messages';
import { balanceEvent, deterministicId, wireChange } from '../../domain/balance/billing-events';
import type { SubBalanceChange } from '../../domain/balance/model';
import type { BalanceOutcome } from '../../domain/balance/outcome';
import { fromMilli } from '../../domain/balance/units';
import type { CommandMeta } from '../balance/ports';
import type { TransferOrder, TransferStore } from './ports';

/** Completed: BalanceTransferred; reversed: TransferReversed. Either event on the source number, its id from the transfer id. */
export type TransferResult = { state: 'completed'; debit: BalanceOutcome; event: OutgoingMessage } | { state: 'reversed'; debit: BalanceOutcome; reason: string; event: OutgoingMessage };

/**
 * The three steps of a transfer — debit (source), credit (target), settle (source) — each idempotent under
 * the transfer id (`meta.commandId`), so the handler and the pending-transfer sweeper run the same code and a
 * step that already ran answers what it did. The handler first notes the transfer for the sweeper; the
 * sweeper (`resumed`) does not, and gets the BalanceTransferred event once the target is credited, before the
 * settlement, to publish it there: a crash after it runs the steps and publishes again (the same id) instead
 * of losing the event. Completed: that event, its id from the transfer id.
 */
export async function runTransfer(transfers: TransferStore, meta: CommandMeta, order: TransferOrder, resumed?: { beforeSettle(event: OutgoingMessage): Promise<void> }): Promise<TransferResult> {
  if (!resumed) await transfers.note(meta, order);
  const debit = await transfers.debit(meta, order);
  const taken = debit.changes[0];
  const credit = await transfers.credit(meta, order.toGpsi, { subBalanceInstId: order.toSubBalanceInstId, subBalanceType: taken.subBalanceType, unitType: taken.unitType, amount: order.amount });
  if (!credit.credited) {
    const settled = await transfers.settle(meta, false);
    return reversed(meta, order, debit, credit.reason, settled.state === 'reversed' ? settled.reversal : undefined);
  }
  const event = balanceEvent('BalanceTransferred', debit, deterministicId(`${meta.commandId}/BalanceTransferred`), {
    ...transferShown(meta.commandId, order),
    changes: [taken, credit.change].map(wireChange),
  });
  await resumed?.beforeSettle(event);
  const settled = await transfers.settle(meta, true);
  return settled.state === 'completed' ? { state: 'completed', debit, event } : reversed(meta, order, debit, 'the target refused it', settled.reversal);
}

/**
 * A reversed transfer and its TransferReversed: the debit, then the reversal's Add, both as recorded (the
 * debit's outcome replays, the settlement answers its reversal again), so a redelivery builds the same event.
 */
function reversed(meta: CommandMeta, order: TransferOrder, debit: BalanceOutcome, reason: string, reversal: SubBalanceChange | undefined): TransferResult {
  const event = balanceEvent('TransferReversed', debit, deterministicId(`${meta.commandId}/TransferReversed`), {
    ...transferShown(meta.commandId, order),
    reason,
    changes: [debit.changes[0], ...(reversal ? [reversal] : [])].map(wireChange),
  });
  return { state: 'reversed', debit, reason, event };
}

/** The fields the reply and the event show of a transfer. */
export const transferShown = (transferId: string, order: TransferOrder) => ({ transferId, toGpsi: order.toGpsi, amount: fromMilli(order.amount) });
