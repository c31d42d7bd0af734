import type { Catalog } from '../../domain/catalog/catalog';
import { balanceRecord } from '../../domain/balance/records';
import { CREDIT_COMMANDS, RESERVATION_COMMANDS, type CreditCommand, type ReservationCommand } from '../../domain/balance-operations/records';
import { checkAdjust, checkTopup } from '../../domain/balance-operations/credit-validation';
import { checkCommit, checkRelease, checkReserve } from '../../domain/balance-operations/reservation-validation';
import type { HandlerRegistration } from '../../contract/handlers';
import type { BalanceStore } from '../balance/ports';
import { createAdjustBalance, createTopupBalance } from './credit-handlers';
import type { ReservationStore, TopupReferences } from './ports';
import { createCommitReservation, createReleaseReservation, createReserveBalance } from './reservation-handlers';

export interface BalanceOperationHandlerDeps {
  reservations: ReservationStore;
  balances: BalanceStore;
  references: TopupReferences;
  catalog: Catalog;
}

/** The reservation, top-up and adjustment handlers, on the balance command topic beside the balance handlers. */
export function createBalanceOperationHandlers(deps: BalanceOperationHandlerDeps): HandlerRegistration[] {
  const parts: Record<ReservationCommand | CreditCommand, Pick<HandlerRegistration, 'handle' | 'validate'>> = {
    ReserveBalance: { handle: createReserveBalance(deps), validate: (c) => checkReserve(c).problems },
    CommitReservation: { handle: createCommitReservation(deps), validate: (c) => checkCommit(c).problems },
    ReleaseReservation: { handle: createReleaseReservation(deps), validate: (c) => checkRelease(c).problems },
    TopupBalance: { handle: createTopupBalance(deps), validate: (c) => checkTopup(c).problems },
    AdjustBalance: { handle: createAdjustBalance(deps), validate: (c) => checkAdjust(c).problems },
  };
  return [...RESERVATION_COMMANDS, ...CREDIT_COMMANDS].map((name) => ({
    domain: 'balance',
    commandRecord: balanceRecord(name),
    replyRecord: balanceRecord(`${name}Reply`),
    ...parts[name],
  }));
}
