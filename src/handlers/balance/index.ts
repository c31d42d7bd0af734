import type { Catalog } from '../../domain/catalog/catalog';
import { BALANCE_COMMANDS, balanceRecord, type BalanceCommand } from '../../domain/balance/records';
import {
  addBucketsCatalogProblems,
  addBucketsForm,
  checkCancelBuckets,
  checkHistory,
  checkQueryBalances,
  checkUpdateEnvelope,
  swapPrimaryCatalogProblems,
  swapPrimaryForm,
  type AddBucketsCommand,
  type CancelBucketsCommand,
  type QueryBalanceHistoryCommand,
  type QueryBalancesCommand,
  type SwapPrimaryBucketCommand,
  type UpdateBalancesCommand,
} from '../../domain/balance/validation';
import type { HandlerRegistration } from '../../contract/handlers';
import { createAddBuckets, createCancelBuckets, createSwapPrimaryBucket } from './bucket-handlers';
import { createQueryBalanceHistory, createQueryBalances, createUpdateBalances } from './balance-handlers';
import type { BalanceStore } from './ports';

export interface BalanceHandlerDeps {
  balances: BalanceStore;
  catalog: Catalog;
}

type Parts = Pick<HandlerRegistration, 'handle' | 'validate' | 'situation' | 'readOnly'>;

/**
 * The balance handlers. `validate` lets the worker list field problems together with header problems
 * (with `situation`'s: the catalog's say on AddBuckets' and SwapPrimaryBucket's ids, which refuse only a
 * change with no recorded outcome — its handler then asks its store for that outcome alone);
 * UpdateBalances only checks its gpsi and list there, so its actions' problems are listed together with
 * the subscription's (unknown instance, below zero…) in one reply. The changes' scripts record their
 * outcomes (scripts/lib/balance/ `finish`) and a rerun rebuilds the reply and events from them.
 */
export function createBalanceHandlers(deps: BalanceHandlerDeps): HandlerRegistration[] {
  const parts: Record<BalanceCommand, Parts> = {
    AddBuckets: { handle: createAddBuckets(deps), validate: addBucketsForm, situation: (c: AddBucketsCommand) => addBucketsCatalogProblems(c, deps.catalog) },
    SwapPrimaryBucket: { handle: createSwapPrimaryBucket(deps), validate: swapPrimaryForm, situation: (c: SwapPrimaryBucketCommand) => swapPrimaryCatalogProblems(c, deps.catalog) },
    CancelBuckets: { handle: createCancelBuckets(deps), validate: (c: CancelBucketsCommand) => checkCancelBuckets(c).problems },
    QueryBalances: { handle: createQueryBalances(deps), validate: (c: QueryBalancesCommand) => checkQueryBalances(c).problems, readOnly: true },
    UpdateBalances: { handle: createUpdateBalances(deps), validate: (c: UpdateBalancesCommand) => checkUpdateEnvelope(c).problems },
    QueryBalanceHistory: { handle: createQueryBalanceHistory(deps), validate: (c: QueryBalanceHistoryCommand) => checkHistory(c).problems, readOnly: true },
  };
  return BALANCE_COMMANDS.map((name) => ({
    domain: 'balance',
    commandRecord: balanceRecord(name),
    replyRecord: balanceRecord(`${name}Reply`),
    ...parts[name],
  }));
}
