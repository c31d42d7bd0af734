import fc from 'fast-check';
import { amountsOf, changeOf } from '../../src/domain/balance/arithmetic';
import { evaluateUpdate } from './balance-model';
import { cycleDaysAt, nextCycleStart } from '../../src/domain/balance/bill-cycle';
import type { BalanceAction, SubBalance, SubBalanceChange } from '../../src/domain/balance/model';
import { expireDue, nextExpiryOf, renewBalances, type RenewableSubBalance } from '../../src/domain/balance/renewal';
import { activationPlan, datedSeeds, instantiate, seedsOf, type SubBalanceSeed } from '../../src/domain/balance/seeds';
import { validityEnd } from '../../src/domain/balance/validity';
import { carryOverTypesOf, creditValidityOf, type Catalog } from '../../src/domain/catalog/catalog';

/**
 * Random histories of one subscription for the balance property tests: an activation, then updates, add-ons
 * bought and cancelled, and time passing (renewals and validity ends as the scheduler takes them). The same
 * history runs through the pure rules here and through the Lua scripts on Redis in the integration test.
 */
const DAY = 86_400_000;
const ADD_ONS = ['2000001', '2000002', '2000003', '2000004'];
const TYPES = ['On-Net Voice', 'On-Net SMS', 'On-Net MMS', 'On-Net Data'];
const UNIT: Record<string, string> = { 'On-Net Voice': 'Min', 'On-Net SMS': 'SMS', 'On-Net MMS': 'MMS', 'On-Net Data': 'MB' };

export const historyStep = fc.oneof(
  fc.record({
    kind: fc.constant('update' as const),
    // perMille: a Subtract of that share of what is left (up to 110 %: now and then too much), an Add of that
    // share of the allocation, so uses and top-ups are of the sub-balance's size. target 19: one that does not exist.
    actions: fc.array(fc.record({ target: fc.nat(19), action: fc.constantFrom('Add' as const, 'Subtract' as const), perMille: fc.integer({ min: 1, max: 1100 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
  fc.record({ kind: fc.constant('addBucket' as const), bucketRefId: fc.constantFrom(...ADD_ONS) }),
  fc.record({ kind: fc.constant('cancel' as const), bucketRefId: fc.constantFrom(...ADD_ONS) }),
  fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }), hours: fc.nat(23) }),
);
export type HistoryStep = typeof historyStep extends fc.Arbitrary<infer T> ? T : never;

export const activation = fc.record({
  plan: fc.constantFrom('WP-BASIC', 'WP-UNL', 'WP-DATA'),
  addOns: fc.subarray(ADD_ONS),
  billCycleStartDay: fc.integer({ min: 1, max: 28 }),
  at: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
});
export type Activation = typeof activation extends fc.Arbitrary<infer T> ? T : never;

/** How far a step moves the clock (billing ms). */
export const stepDuration = (step: HistoryStep): number => (step.kind === 'advance' ? step.days * DAY + step.hours * 3_600_000 : 0);

/** The actions of an update step on the sub-balances held (a target past them names a sub-balance that does not exist). */
export function actionsOf(step: Extract<HistoryStep, { kind: 'update' }>, balances: readonly SubBalance[], gpsi: string): BalanceAction[] {
  return step.actions.map((a) => {
    const target = a.target === 19 ? undefined : balances[a.target % Math.max(1, balances.length)];
    const type = target?.subBalanceType ?? TYPES[a.target % 4];
    const base = (a.action === 'Subtract' ? target?.remaining : target?.allocated) || 1_000_000;
    const quantity = Math.max(1, Math.floor((base * a.perMille) / 1000));
    return { subBalanceInstId: target?.subBalanceInstId ?? `${gpsi}-999`, subBalanceType: type, unitType: UNIT[type], action: a.action, quantity };
  });
}

/** The end (billing ms) a top-up made at `now` gives purchased credit, by type. */
export const creditEndsAt = (catalog: Catalog, now: number) => Object.fromEntries(Object.entries(creditValidityOf(catalog)).map(([type, validity]) => [type, validityEnd(now, validity)]));

/** Runs a history through the pure rules: the ledger (oldest change first) and the balances it leaves. */
export function runPure(catalog: Catalog, gpsi: string, start: Activation, history: readonly HistoryStep[]): { ledger: SubBalanceChange[]; balances: SubBalance[] } {
  const carryOver = new Set(carryOverTypesOf(catalog));
  let now = start.at;
  let seq = 0;
  let cycleNo = 1;
  let nextRenewal = nextCycleStart(new Date(now), start.billCycleStartDay).getTime();
  let balances: RenewableSubBalance[] = [];
  const ledger: SubBalanceChange[] = [];
  const create = (seeds: SubBalanceSeed[]) => {
    for (const seed of datedSeeds(seeds, now, 'UTC')) {
      const { balance, change } = instantiate(seed, `${gpsi}-${++seq}`);
      balances.push(balance);
      ledger.push(change);
    }
  };
  const record = (step: { balances: RenewableSubBalance[]; changes: SubBalanceChange[] }) => {
    balances = step.balances;
    ledger.push(...step.changes);
  };

  create(activationPlan(catalog, catalog.plans.get(start.plan)!, start.addOns, cycleDaysAt(new Date(now), start.billCycleStartDay)).seeds);
  for (const step of history) {
    if (step.kind === 'update') {
      const result = evaluateUpdate(balances, actionsOf(step, balances, gpsi), 'balances', creditEndsAt(catalog, now));
      if (result.problems.length === 0) record({ balances: result.balances, changes: result.changes });
    } else if (step.kind === 'addBucket') {
      create(seedsOf(catalog.buckets.get(step.bucketRefId)!));
    } else if (step.kind === 'cancel') {
      const removed = balances.filter((b) => b.bucketRefId === step.bucketRefId);
      record({ balances: balances.filter((b) => b.bucketRefId !== step.bucketRefId), changes: removed.map((b) => changeOf('Removed', b, amountsOf(b))) });
    } else {
      now += stepDuration(step);
      // The scheduler's order: each renewal and validity end that has come, an end at a cycle start first.
      for (;;) {
        const expiry = nextExpiryOf(balances) ?? Infinity;
        if (Math.min(expiry, nextRenewal) > now) break;
        if (expiry <= nextRenewal) record(expireDue(balances, expiry));
        else {
          record(renewBalances(balances, ++cycleNo, carryOver));
          nextRenewal = nextCycleStart(new Date(nextRenewal), start.billCycleStartDay).getTime();
        }
      }
    }
  }
  return { ledger, balances: balances.map(({ firstCycle: _mark, ...b }) => b) };
}
