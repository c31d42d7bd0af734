import type { Catalog } from '../../domain/catalog/catalog';
import { balanceRecord } from '../../domain/balance/records';
import { CREDIT_COMMANDS, RESERVATION_COMMANDS, TRANSFER_COMMANDS, type CreditCommand, type ReservationCommand } from '../../domain/balance-operations/records';
import { checkTransfer, type TransferBalanceCommand } from '../../domain/balance-operations/transfer-validation';
import { checkAdjust, checkTopup, type AdjustBalanceCommand, type TopupBalanceCommand } from '../../domain/balance-operations/credit-validation';
import {
  checkCommit,
  checkRelease,
  checkReserve,
  type CommitReservationCommand,
  type ReleaseReservationCommand,
  type ReserveBalanceCommand,
} from '../../domain/balance-operations/reservation-validation';
import type { HandlerRegistration } from '../../contract/handlers';
import type { BalanceStore } from '../balance/ports';
import { createAdjustBalance, createTopupBalance } from './credit-handlers';
import type { ReservationStore, TopupReferences, TransferStore } from './ports';
import { createTransferBalance } from './transfer-handler';
import { createCommitReservation, createReleaseReservation, createReserveBalance } from './reservation-handlers';

export interface BalanceOperationHandlerDeps {
  reservations: ReservationStore;
  balances: BalanceStore;
  references: TopupReferences;
  transfers: TransferStore;
  catalog: Catalog;
}

/** The reservation, top-up, adjustment and transfer handlers, on the balance command topic beside the balance handlers. */
export function createBalanceOperationHandlers(deps: BalanceOperationHandlerDeps): HandlerRegistration[] {
  const parts: Record<ReservationCommand | CreditCommand | 'TransferBalance', Pick<HandlerRegistration, 'handle' | 'validate'>> = {
    ReserveBalance: { handle: createReserveBalance(deps), validate: (c: ReserveBalanceCommand) => checkReserve(c).problems },
    CommitReservation: { handle: createCommitReservation(deps), validate: (c: CommitReservationCommand) => checkCommit(c).problems },
    ReleaseReservation: { handle: createReleaseReservation(deps), validate: (c: ReleaseReservationCommand) => checkRelease(c).problems },
    TopupBalance: { handle: createTopupBalance(deps), validate: (c: TopupBalanceCommand) => checkTopup(c).problems },
    AdjustBalance: { handle: createAdjustBalance(deps), validate: (c: AdjustBalanceCommand) => checkAdjust(c).problems },
    TransferBalance: { handle: createTransferBalance(deps), validate: (c: TransferBalanceCommand) => checkTransfer(c).problems },
  };
  return [...RESERVATION_COMMANDS, ...CREDIT_COMMANDS, ...TRANSFER_COMMANDS].map((name) => ({
    domain: 'balance',
    commandRecord: balanceRecord(name),
    replyRecord: balanceRecord(`${name}Reply`),
    ...parts[name],
  }));
}
