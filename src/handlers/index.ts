import type { HandlerRegistration } from '../contract/handlers';
import type { Catalog } from '../domain/catalog/catalog';
import { createBalanceHandlers } from './balance';
import { createBalanceOperationHandlers } from './balance-operations';
import type { ReservationStore, TopupReferences, TransferStore } from './balance-operations/ports';
import type { BalanceStore } from './balance/ports';
import { createPortInHandlers, type PortInDeps } from './portin';

/** What the handler factories are built from: each feature's ports and the catalog (wired in src/app/). */
export interface HandlerDeps {
  catalog: Catalog;
  balances: BalanceStore;
  reservations: ReservationStore;
  topupReferences: TopupReferences;
  transfers: TransferStore;
  /** Port-in store, settings and the subscription lifecycle (src/app/portin.ts). */
  portin: PortInDeps;
}

export function createHandlers(deps: HandlerDeps): HandlerRegistration[] {
  return [...createPortInHandlers(deps.portin), ...createBalanceHandlers({ balances: deps.balances, catalog: deps.catalog }),
    ...createBalanceOperationHandlers({ reservations: deps.reservations, balances: deps.balances, references: deps.topupReferences, transfers: deps.transfers, catalog: deps.catalog })];
}
