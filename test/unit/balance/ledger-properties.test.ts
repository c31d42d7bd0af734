import fc from 'fast-check';
import { evaluateUpdate } from '../../support/balance-model';
import { renewBalances } from '../../../src/domain/balance/renewal';
import { activationPlan, instantiate } from '../../../src/domain/balance/seeds';
import { buildCatalog } from '../../../src/domain/catalog/catalog';
import defaultCatalog from '../../../config/catalog.json';
import { activation, historyStep, runPure } from '../../support/balance-history';
import { allocationOf, checkLedger, propertyCatalogDocument } from '../../support/ledger-sum';

/**
 * The balance arithmetic never creates units out of nothing: any random history — activation in a partial
 * first cycle (prorated, full or empty), adds and subtracts, add-ons bought and cancelled, renewals with
 * rollover and purchased credit kept or lapsing, expiries of dated add-ons and of purchased credit — driven
 * through the pure rules leaves a ledger whose sum is every balance (test/support/ledger-sum.ts). The same
 * histories run through the Lua scripts on Redis in test/integration/balance-ledger-properties.test.ts.
 */
const catalog = buildCatalog(propertyCatalogDocument(defaultCatalog));
const GPSI = '15550000001';

describe('ledger = balance over any random history (pure rules)', () => {
  it('every balance is the sum of its ledger, and no change makes units out of nothing', () => {
    const exercised: Record<string, number> = {};
    fc.assert(
      fc.property(activation, fc.array(historyStep, { maxLength: 25 }), (start, history) => {
        const { ledger, balances } = runPure(catalog, GPSI, start, history);
        const report = checkLedger(ledger, balances, allocationOf(catalog));
        expect(report.problems).toEqual([]);
        for (const [kind, n] of Object.entries(report.kinds)) exercised[kind] = (exercised[kind] ?? 0) + n;
      }),
      { numRuns: 300 },
    );
    // The histories met every kind of change (else the property would hold for want of trying).
    expect(Object.keys(exercised).sort()).toEqual(['Add', 'Created', 'CreditExpired', 'Expired', 'Removed', 'Renewed', 'Subtract']);
  });

  it('the reference catches a ledger that does not add up', () => {
    const [voice] = activationPlan(catalog, catalog.plans.get('WP-BASIC')!, [], { daysLeft: 30, daysInCycle: 30 }).seeds;
    const { balance, change } = instantiate({ ...voice }, `${GPSI}-1`);
    const used = evaluateUpdate([balance], [{ subBalanceInstId: balance.subBalanceInstId, subBalanceType: 'On-Net Voice', unitType: 'Min', action: 'Subtract', quantity: 1000 }]);
    const fine = checkLedger([change, ...used.changes], used.balances, allocationOf(catalog));
    expect(fine.problems).toEqual([]);
    // A change that does not move remaining by its quantity; a balance changed off the ledger.
    const inflated = { ...used.changes[0], after: { ...used.changes[0].after!, remaining: used.changes[0].after!.remaining + 1 } };
    expect(checkLedger([change, inflated], used.balances, allocationOf(catalog)).problems).toEqual([
      expect.stringContaining('moved remaining by -999, not -1000'),
      expect.stringContaining('the ledger ends at'),
    ]);
    expect(checkLedger([change, ...used.changes], [{ ...used.balances[0], remaining: 499_005 }], allocationOf(catalog)).problems).toEqual([
      expect.stringContaining('the ledger sums to 499000, the balance is 499005'),
      expect.stringContaining('the ledger ends at'),
    ]);
    // A renewal that carries more than was left.
    const renewed = renewBalances(used.balances, 2, new Set()).changes[0];
    const overCarried = { ...renewed, after: { ...renewed.after!, rollover: renewed.before!.remaining + 1, remaining: renewed.after!.allocated + renewed.before!.remaining + 1 } };
    expect(checkLedger([change, ...used.changes, overCarried], [], allocationOf(catalog)).problems).toContainEqual(expect.stringContaining('more than the'));
  });
});
