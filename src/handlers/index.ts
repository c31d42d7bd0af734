import type { HandlerRegistration } from '../contract/handlers';
import type { Catalog } from '../domain/catalog/catalog';
import { createBalanceHandlers } from './balance';
import { createBalanceOperationHandlers } from './balance-operations';
import type { ReservationStore, TopupReferences, TransferStore } from './balance-operations/ports';
import type { BalanceStore } from './balance/ports';
import { createPortInHandlers, type PortInDeps } from './portin';
import { createPortOutHandlers, type PortOutDeps } from './port-out';
import { createFocHandlers } from './foc';
import { createPortOrderHandlers, withCancelSettlement, type PortOrderStore } from './port-orders';

/** What the handler factories are built from: each feature's ports and the catalog (wired in src/app/). */
export interface HandlerDeps {
  catalog: Catalog;
  balances: BalanceStore;
  reservations: ReservationStore;
  topupReferences: TopupReferences;
  transfers: TransferStore;
  /** Port-in store, settings and the subscription lifecycle (src/app/portin.ts). */
  portin: PortInDeps;
  /** Port-out store, settings and the subscription's end (src/app/port-out.ts); without it, no port-out commands. */
  portout?: PortOutDeps;
  /** Port orders (many numbers, each through the port-in handlers); without it, no port-order commands. */
  portOrders?: { orders: PortOrderStore; concurrency: number };
}

export function createHandlers(deps: HandlerDeps): HandlerRegistration[] {
  return [
    // with port orders, a single CancelPortIn that settles an order's last number publishes its SETTLED
    ...(deps.portOrders ? withCancelSettlement(createPortInHandlers(deps.portin), { ...deps.portOrders, portin: deps.portin }) : createPortInHandlers(deps.portin)),
    ...createFocHandlers(deps.portin),
    ...(deps.portout ? createPortOutHandlers(deps.portout) : []),
    ...(deps.portOrders ? createPortOrderHandlers({ ...deps.portOrders, portin: deps.portin }) : []),
    ...createBalanceHandlers({ balances: deps.balances, catalog: deps.catalog }),
    ...createBalanceOperationHandlers({ reservations: deps.reservations, balances: deps.balances, references: deps.topupReferences, transfers: deps.transfers, catalog: deps.catalog }),
  ];
}
