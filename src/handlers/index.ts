import type { ServiceConfig } from '../config';
import type { Catalog } from '../domain/catalog/catalog';
import type { RedisClient } from '../adapters/redis/client';
import type { BalanceComponents } from '../app/balance';
import { createBalanceHandlers } from './balance';
import { createPortInHandlers, type PortInDeps } from './portin';
import type { HandlerRegistration } from '../contract/handlers';

/** What the handler factories may be given: configuration, the catalog and the Redis client their stores wrap. */
export interface HandlerDeps {
  config: ServiceConfig;
  catalog: Catalog;
  redis: RedisClient;
  /** Balance stores and the subscription lifecycle (src/app/balance.ts). */
  balance: BalanceComponents;
  /** Port-in store, settings and the subscription lifecycle (src/app/portin.ts). */
  portin: PortInDeps;
}

export function createHandlers(deps: HandlerDeps): HandlerRegistration[] {
  return [
    ...createPortInHandlers(deps.portin),
    ...createBalanceHandlers({ balances: deps.balance.balances, catalog: deps.catalog }),
  ];
}
