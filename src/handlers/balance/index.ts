import type { Catalog } from '../../domain/catalog/catalog';
import { BALANCE_NAMESPACE } from '../../domain/balance/billing-events';
import type { Handler, HandlerRegistration } from '../types';
import { createAddBuckets, createCancelBuckets, createSwapPrimaryBucket } from './bucket-handlers';
import { createQueryBalanceHistory, createQueryBalances, createUpdateBalances } from './balance-handlers';
import type { BalanceStore } from './ports';

export interface BalanceHandlerDeps {
  balances: BalanceStore;
  catalog: Catalog;
}

/** Record names of the balance commands; each replies with `<name>Reply`. */
export const BALANCE_COMMANDS = ['AddBuckets', 'SwapPrimaryBucket', 'CancelBuckets', 'QueryBalances', 'UpdateBalances', 'QueryBalanceHistory'] as const;
export type BalanceCommand = (typeof BALANCE_COMMANDS)[number];

export function createBalanceHandlers(deps: BalanceHandlerDeps): HandlerRegistration[] {
  const handlers: Record<BalanceCommand, Handler> = {
    AddBuckets: createAddBuckets(deps),
    SwapPrimaryBucket: createSwapPrimaryBucket(deps),
    CancelBuckets: createCancelBuckets(deps),
    QueryBalances: createQueryBalances(deps),
    UpdateBalances: createUpdateBalances(deps),
    QueryBalanceHistory: createQueryBalanceHistory(deps),
  };
  return BALANCE_COMMANDS.map((name) => ({
    domain: 'balance',
    commandRecord: `${BALANCE_NAMESPACE}.${name}`,
    replyRecord: `${BALANCE_NAMESPACE}.${name}Reply`,
    handle: handlers[name],
  }));
}
