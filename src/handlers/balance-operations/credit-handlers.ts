import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { thresholdEvents } from '../../domain/balance/billing-events';
import { thresholdLevelsOf } from '../../domain/balance/thresholds';
import { accept } from '../../domain/balance/validation';
import { creditValidityOf, type Catalog } from '../../domain/catalog/catalog';
import { creditEvent } from '../../domain/balance-operations/credit-events';
import { checkAdjust, checkTopup, topupCommandId, type AdjustBalanceCommand, type TopupBalanceCommand } from '../../domain/balance-operations/credit-validation';
import type { BalanceStore } from '../balance/ports';
import { commandMeta, wireBalances } from '../balance/replies';
import type { TopupReferences } from './ports';

/**
 * TopupBalance: an UpdateBalances Add (purchased credit, dated by the catalog) recorded under the
 * reference's identity rather than the correlation id's, so it is applied once per reference: the same
 * reference again replays the first outcome, another payload under it is CONFLICT (its fingerprint), and a
 * reference first used for another number is CONFLICT before anything is applied.
 */
export const createTopupBalance = (deps: { balances: BalanceStore; references: TopupReferences; catalog: Catalog }): Handler<TopupBalanceCommand> => {
  const creditValidity = creditValidityOf(deps.catalog);
  return async (command, context) => {
    const t = accept(checkTopup(command), context.wholesaleCustomerId);
    const customer = context.wholesaleCustomerId!;
    const holder = await deps.references.claim(customer, t.reference, command.gpsi);
    if (holder !== command.gpsi) {
      throw new ServiceError('CONFLICT', `Reference ${t.reference} was already used for another subscription`, [{ path: 'reference', reason: 'was already used for another subscription' }]);
    }
    const meta = { ...commandMeta(command.gpsi, context), commandId: topupCommandId(customer, t.reference) };
    const outcome = await deps.balances.updateBalances(meta, { actions: [t.action], problems: [] }, {}, creditValidity);
    const shown = { reference: t.reference, referenceType: t.referenceType };
    return {
      reply: { status: 'Success', ...shown, balances: wireBalances(outcome.balances) },
      messages: [creditEvent('BalanceToppedUp', outcome, shown, meta.commandId)],
      replayed: outcome.replayed,
    };
  };
};

/**
 * AdjustBalance: a Credit (an Add) or Debit (a Subtract, never below what reservations hold) with a reason
 * code, which the ledger keeps in the operation (`AdjustBalance/<reasonCode>`) and the event carries.
 */
export const createAdjustBalance = (deps: { balances: BalanceStore; catalog: Catalog }): Handler<AdjustBalanceCommand> => {
  const thresholds = thresholdLevelsOf(deps.catalog);
  const creditValidity = creditValidityOf(deps.catalog);
  return async (command, context) => {
    const a = accept(checkAdjust(command), context.wholesaleCustomerId);
    const meta = { ...commandMeta(command.gpsi, context), operation: `${context.operation}/${a.reasonCode}` };
    const outcome = await deps.balances.updateBalances(meta, { actions: [a.action], problems: [] }, thresholds, creditValidity);
    return {
      reply: { status: 'Success', reasonCode: a.reasonCode, balances: wireBalances(outcome.balances) },
      messages: [creditEvent('BalanceAdjusted', outcome, { reasonCode: a.reasonCode, note: a.note }, context.commandId), ...thresholdEvents(outcome, context.commandId)],
      replayed: outcome.replayed,
    };
  };
};
