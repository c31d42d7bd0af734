import type { Catalog } from '../../domain/catalog/catalog';
import { balanceRecord } from '../../domain/balance/records';
import { RESERVATION_COMMANDS, type ReservationCommand } from '../../domain/balance-operations/records';
import { checkCommit, checkRelease, checkReserve } from '../../domain/balance-operations/reservation-validation';
import type { HandlerRegistration } from '../../contract/handlers';
import type { ReservationStore } from './ports';
import { createCommitReservation, createReleaseReservation, createReserveBalance } from './reservation-handlers';

export interface BalanceOperationHandlerDeps {
  reservations: ReservationStore;
  catalog: Catalog;
}

/** The reservation handlers, on the balance command topic beside the balance handlers. */
export function createBalanceOperationHandlers(deps: BalanceOperationHandlerDeps): HandlerRegistration[] {
  const parts: Record<ReservationCommand, Pick<HandlerRegistration, 'handle' | 'validate'>> = {
    ReserveBalance: { handle: createReserveBalance(deps), validate: (c) => checkReserve(c).problems },
    CommitReservation: { handle: createCommitReservation(deps), validate: (c) => checkCommit(c).problems },
    ReleaseReservation: { handle: createReleaseReservation(deps), validate: (c) => checkRelease(c).problems },
  };
  return RESERVATION_COMMANDS.map((name) => ({
    domain: 'balance',
    commandRecord: balanceRecord(name),
    replyRecord: balanceRecord(`${name}Reply`),
    ...parts[name],
  }));
}
