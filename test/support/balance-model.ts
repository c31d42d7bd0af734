import type { FieldProblem } from '../../src/contract/errors';
import { amountsOf, applyQuantity, changeOf, type PurchasedCreditEnds } from '../../src/domain/balance/arithmetic';
import type { BalanceAction, SubBalance, SubBalanceChange, Amounts } from '../../src/domain/balance/model';
import { purchasedUntilAfterTopUp } from '../../src/domain/balance/validity';

/**
 * The reference model of UpdateBalances: what balancesUpdate-4.lua must do, in TypeScript over the pure
 * arithmetic (applyQuantity). Only the tests use it — the unit and property tests, and the model-based
 * integration test that compares it with the Lua script (test/integration/balance-store.test.ts).
 */
export interface UpdateEvaluation {
  problems: FieldProblem[];
  /** The changes in action order; empty when any problem was found (all or nothing). */
  changes: SubBalanceChange[];
  balances: SubBalance[];
}

/**
 * Applies one action's amounts to a sub-balance (in place): an Add moves the purchased credit's end to
 * the later of the two (purchasedUntilAfterTopUp), credit used up has no end any more.
 */
function applyTo(target: SubBalance, result: Pick<Amounts, 'remaining' | 'purchased'>, action: BalanceAction['action'], ends: PurchasedCreditEnds): void {
  const until = action === 'Add' ? purchasedUntilAfterTopUp(target, ends[target.subBalanceType]) : target.purchasedUntil;
  Object.assign(target, result);
  if (until === undefined || target.purchased === 0) delete target.purchasedUntil;
  else target.purchasedUntil = until;
}

/**
 * Evaluates UpdateBalances all or nothing: actions apply in order (two Subtracts on one sub-balance see
 * each other), every problem is listed, and when there is any the balances are returned unchanged.
 * Actions validation found unusable (undefined) or without action/quantity were already reported; the rest
 * are still checked against the subscription so the reply lists every problem. `ends`: the validity a
 * top-up gives purchased credit now, by subBalanceType.
 */
export function evaluateUpdate(balances: readonly SubBalance[], actions: readonly (BalanceAction | undefined)[], path = 'balances', ends: PurchasedCreditEnds = {}): UpdateEvaluation {
  const problems: FieldProblem[] = [];
  const working = new Map(balances.map((b) => [b.subBalanceInstId, { ...b }]));
  const changes: SubBalanceChange[] = [];
  actions.forEach((a, i) => {
    if (!a) return; // unusable action (no id, type or unit), reported by validation
    const at = `${path}[${i}]`;
    const target = working.get(a.subBalanceInstId);
    if (!target) {
      problems.push({ path: `${at}.subBalanceInstId`, reason: 'names no sub-balance of this subscription' });
      return;
    }
    let fits = true;
    if (a.subBalanceType !== target.subBalanceType) {
      problems.push({ path: `${at}.subBalanceType`, reason: `must be ${target.subBalanceType} for this sub-balance` });
      fits = false;
    }
    if (a.unitType !== target.unitType) {
      problems.push({ path: `${at}.unitType`, reason: `must be ${target.unitType} for this sub-balance` });
      fits = false;
    }
    if (!fits || a.action === undefined || a.quantity === undefined) return;
    const result = applyQuantity(target, a.action, a.quantity);
    if ('reason' in result) {
      problems.push({ path: `${at}.quantity`, reason: result.reason });
      return;
    }
    const before = amountsOf(target);
    applyTo(target, result, a.action, ends);
    changes.push(changeOf(a.action, target, before, amountsOf(target), a.quantity));
  });
  if (problems.length > 0) return { problems, changes: [], balances: [...balances] };
  return { problems, changes, balances: balances.map((b) => working.get(b.subBalanceInstId)!) };
}
