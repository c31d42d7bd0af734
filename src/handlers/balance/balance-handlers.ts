import { billingEvent, thresholdEvents, wireChange } from '../../domain/balance/billing-events';
import { thresholdLevelsOf } from '../../domain/balance/thresholds';
import { creditValidityOf, type Catalog } from '../../domain/catalog/catalog';
import {
  accept,
  checkHistory,
  checkQueryBalances,
  checkUpdateActions,
  checkUpdateEnvelope,
  type QueryBalanceHistoryCommand,
  type QueryBalancesCommand,
  type UpdateBalancesCommand,
} from '../../domain/balance/validation';
import type { Handler } from '../../contract/handlers';
import type { BalanceStore } from './ports';
import { commandMeta, successReply } from './replies';

/** QueryBalances: the balances of an active subscription the caller can see (service-spec 2.10). */
export const createQueryBalances =
  (deps: { balances: BalanceStore }): Handler<QueryBalancesCommand> =>
  async (command, context) => {
    accept(checkQueryBalances(command), context.wholesaleCustomerId);
    const { balances } = await deps.balances.queryBalances(command.gpsi, context.visibleCustomerIds);
    return { reply: successReply(balances) };
  };

/**
 * UpdateBalances, all or nothing. The actions' own fields are checked here, the rest (instance, type,
 * unit, below zero) inside the store's atomic step, which also gets our problems so that it writes nothing
 * and the reply lists every problem at once. The same step reports the catalog's usage thresholds reached:
 * one BalanceThresholdReached each, after BalancesUpdated; and dates the purchased credit of an Add by the
 * catalog's purchasedCredit validity.
 */
export const createUpdateBalances = (deps: { balances: BalanceStore; catalog: Catalog }): Handler<UpdateBalancesCommand> => {
  const thresholds = thresholdLevelsOf(deps.catalog);
  const creditValidity = creditValidityOf(deps.catalog);
  return async (command, context) => {
    const items = accept(checkUpdateEnvelope(command), context.wholesaleCustomerId);
    const outcome = await deps.balances.updateBalances(commandMeta(command.gpsi, context), checkUpdateActions(items), thresholds, creditValidity);
    return {
      reply: successReply(outcome.balances),
      messages: [billingEvent('BalancesUpdated', outcome, context.commandId), ...thresholdEvents(outcome, context.commandId)],
      replayed: outcome.replayed,
    };
  };
};

/** QueryBalanceHistory (beyond the spec): the ledger, newest first; with subscriptionId, that subscription's (an ended one's too). */
export const createQueryBalanceHistory =
  (deps: { balances: BalanceStore }): Handler<QueryBalanceHistoryCommand> =>
  async (command, context) => {
    const limit = accept(checkHistory(command), context.wholesaleCustomerId);
    const entries = await deps.balances.history(command.gpsi, context.visibleCustomerIds, limit, command.subscriptionId ?? undefined);
    return {
      reply: {
        status: 'Success',
        gpsi: command.gpsi,
        entries: entries.map((e) => ({ at: e.at, correlationId: e.correlationId, operation: e.operation, ...wireChange(e) })),
      },
    };
  };
