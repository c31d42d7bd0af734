import fc from 'fast-check';
import { applyQuantity, firstCycleAllocation, renewAmounts, rolloverCapOf } from '../../../src/domain/balance/arithmetic';
import { evaluateUpdate } from '../../support/balance-model';
import { totalOf, type BalanceAction, type SubBalance } from '../../../src/domain/balance/model';
import { MAX_MILLI } from '../../../src/domain/balance/units';

const subBalance = (overrides: Partial<SubBalance> = {}): SubBalance => ({
  subBalanceInstId: '15550000001-1',
  bucketRefId: '1000001',
  bucketKind: 'PRIMARY',
  subBalanceType: 'On-Net Data',
  unitType: 'MB',
  allocated: 5_120_000,
  remaining: 5_120_000,
  rollover: 0,
  purchased: 0,
  rolloverCap: 2_560_000,
  endCycle: 0,
  ...overrides,
});

const action = (overrides: Partial<BalanceAction> = {}): BalanceAction => ({
  subBalanceInstId: '15550000001-1',
  subBalanceType: 'On-Net Data',
  unitType: 'MB',
  action: 'Add',
  quantity: 1000,
  ...overrides,
});

const milli = fc.integer({ min: 0, max: 1e12 });
const positive = fc.integer({ min: 1, max: 1e12 });

describe('balance arithmetic', () => {
  it('caps rollover at a share of the allocation, rounded down to a milli-unit', () => {
    expect(rolloverCapOf(5_120_000, 0.5)).toBe(2_560_000);
    expect(rolloverCapOf(10, 0.3)).toBe(3); // 0.3 * 10 is 2.9999… in doubles: integer arithmetic avoids it
    expect(rolloverCapOf(7, 0.5)).toBe(3);
    expect(rolloverCapOf(5_120_000, 0)).toBe(0);
    expect(rolloverCapOf(5_120_000, 1)).toBe(5_120_000);
  });

  /** remaining with the purchased part of it (0 <= purchased <= remaining). */
  const holding = fc.tuple(milli, milli).map(([a, b]) => ({ remaining: Math.max(a, b), purchased: Math.min(a, b) }));

  it('never takes remaining below zero; usage draws on the grant first, then on purchased credit', () => {
    fc.assert(
      fc.property(holding, positive, (b, quantity) => {
        const result = applyQuantity(b, 'Subtract', quantity);
        if (quantity > b.remaining) return void expect(result).toEqual({ reason: expect.stringContaining('below zero') });
        const granted = b.remaining - b.purchased;
        expect(result).toEqual({ remaining: b.remaining - quantity, purchased: quantity <= granted ? b.purchased : b.remaining - quantity });
      }),
    );
    expect(applyQuantity({ remaining: 1500, purchased: 1000 }, 'Subtract', 400)).toEqual({ remaining: 1100, purchased: 1000 });
    expect(applyQuantity({ remaining: 1500, purchased: 1000 }, 'Subtract', 700)).toEqual({ remaining: 800, purchased: 800 });
  });

  it('an Add is purchased credit: remaining and purchased rise alike, 0 <= purchased <= remaining', () => {
    fc.assert(
      fc.property(holding, positive, (b, quantity) => {
        const added = applyQuantity(b, 'Add', quantity);
        if (!('remaining' in added)) return;
        expect(added).toEqual({ remaining: b.remaining + quantity, purchased: b.purchased + quantity });
        expect(added.purchased).toBeLessThanOrEqual(added.remaining);
      }),
    );
  });

  it('Add then Subtract of the same quantity gives back the remaining; the purchased part never exceeds it', () => {
    fc.assert(
      fc.property(holding, positive, (b, quantity) => {
        const added = applyQuantity(b, 'Add', quantity);
        if (!('remaining' in added)) return;
        const back = applyQuantity(added, 'Subtract', quantity);
        expect(back).toMatchObject({ remaining: b.remaining });
        if ('purchased' in back) expect(back.purchased).toBeGreaterThanOrEqual(b.purchased); // the grant was used first
      }),
    );
  });

  it('refuses an Add above the largest balance', () => {
    expect(applyQuantity({ remaining: MAX_MILLI, purchased: 0 }, 'Add', 1)).toEqual({ reason: expect.stringContaining('above') });
  });

  it('renews to allocation plus the unused part, rollover capped, total = allocated + rollover', () => {
    fc.assert(
      fc.property(positive, milli, fc.integer({ min: 0, max: 1000 }), (allocated, remaining, perMille) => {
        const rolloverCap = rolloverCapOf(allocated, perMille / 1000);
        const renewed = renewAmounts({ allocated, remaining, rollover: 0, purchased: 0, rolloverCap });
        expect(renewed.rollover).toBe(Math.min(remaining, rolloverCap));
        expect(renewed.rollover).toBeLessThanOrEqual(rolloverCap);
        expect(renewed.remaining).toBe(totalOf(renewed));
        expect(renewed.remaining).toBeGreaterThanOrEqual(allocated);
      }),
    );
  });

  it('purchased credit carries over whole when its type says so, beside the cap; otherwise it lapses, rolling over only within the cap', () => {
    const bought = { allocated: 500_000, rollover: 0, rolloverCap: 250_000, remaining: 1_100_000, purchased: 1_000_000 }; // 100 of the grant left
    expect(renewAmounts({ ...bought, carryOver: true })).toEqual({ allocated: 500_000, rollover: 100_000, purchased: 1_000_000, remaining: 1_600_000 });
    expect(renewAmounts({ ...bought, carryOver: false })).toEqual({ allocated: 500_000, rollover: 250_000, purchased: 0, remaining: 750_000 });
    expect(renewAmounts(bought)).toEqual(renewAmounts({ ...bought, carryOver: false })); // not listed in the catalog: lapses
    fc.assert(
      fc.property(holding, positive, fc.integer({ min: 0, max: 1000 }), fc.boolean(), (b, allocated, perMille, carryOver) => {
        const rolloverCap = rolloverCapOf(allocated, perMille / 1000);
        const renewed = renewAmounts({ ...b, allocated, rollover: 0, rolloverCap, carryOver });
        expect(renewed.purchased).toBe(carryOver ? b.purchased : 0);
        expect(renewed.rollover).toBeLessThanOrEqual(rolloverCap);
        expect(renewed.rollover + renewed.purchased).toBeLessThanOrEqual(b.remaining); // nothing carried that was not left
        expect(renewed.remaining).toBe(allocated + renewed.rollover + renewed.purchased);
      }),
    );
  });

  it('prorates a partial first cycle by the days left, rounded down, never above the allocation', () => {
    expect(firstCycleAllocation(5_000_000, 'prorate', { daysLeft: 1, daysInCycle: 31 })).toBe(161_290);
    expect(firstCycleAllocation(5_000_000, 'prorate', { daysLeft: 31, daysInCycle: 31 })).toBe(5_000_000);
    expect(firstCycleAllocation(5_000_000, 'none', { daysLeft: 30, daysInCycle: 31 })).toBe(0);
    expect(firstCycleAllocation(5_000_000, 'full', { daysLeft: 1, daysInCycle: 31 })).toBe(5_000_000);
    fc.assert(
      fc.property(positive, fc.integer({ min: 28, max: 31 }), fc.integer({ min: 1, max: 31 }), (allocated, daysInCycle, left) => {
        const daysLeft = Math.min(left, daysInCycle);
        const prorated = firstCycleAllocation(allocated, 'prorate', { daysLeft, daysInCycle });
        expect(prorated).toBeLessThanOrEqual(allocated);
        expect(prorated * daysInCycle).toBeLessThanOrEqual(allocated * daysLeft);
        expect((prorated + 1) * daysInCycle).toBeGreaterThan(allocated * daysLeft);
      }),
    );
  });

  it('never creates units: from a partial first cycle on, a renewal grants the allocation and carries at most what was left', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('Add' as const), quantity: positive }),
      fc.record({ kind: fc.constant('Subtract' as const), quantity: positive }),
      fc.record({ kind: fc.constant('Renew' as const) }),
    );
    fc.assert(
      fc.property(
        positive,
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('prorate' as const, 'full' as const, 'none' as const),
        fc.boolean(),
        fc.integer({ min: 1, max: 30 }),
        fc.array(step, { maxLength: 20 }),
        (allocation, perMille, mode, rolloverFromFirstCycle, daysLeft, history) => {
          const rolloverCap = rolloverCapOf(allocation, perMille / 1000);
          const first = firstCycleAllocation(allocation, mode, { daysLeft, daysInCycle: 31 });
          let b = { allocated: first, remaining: first, rollover: 0, purchased: 0 };
          let firstCycle: { allocation: number; rollover: boolean } | undefined = { allocation, rollover: rolloverFromFirstCycle };
          for (const s of history) {
            if (s.kind === 'Renew') {
              const renewed = renewAmounts({ ...b, rolloverCap, firstCycle });
              const lapsed = b.remaining - renewed.rollover;
              expect(lapsed).toBeGreaterThanOrEqual(0); // rollover only ever carries what was left
              if (firstCycle && !firstCycle.rollover) expect(renewed.rollover).toBe(0);
              expect(renewed.allocated).toBe(allocation);
              expect(renewed.rollover).toBeLessThanOrEqual(rolloverCap);
              b = renewed;
              firstCycle = undefined;
            } else {
              const result = applyQuantity(b, s.kind, s.quantity);
              if ('reason' in result) continue;
              b = { ...b, ...result };
            }
          }
        },
      ),
    );
  });

  it('does not accumulate rollover across cycles beyond the cap', () => {
    let amounts = { allocated: 1000, remaining: 1000, rollover: 0, purchased: 0, rolloverCap: 500 };
    for (let cycle = 0; cycle < 5; cycle++) amounts = { ...renewAmounts(amounts), rolloverCap: 500 };
    expect(amounts).toMatchObject({ rollover: 500, remaining: 1500 });
  });
});

describe('UpdateBalances evaluation (all or nothing)', () => {
  it('applies every action in order and reports before and after', () => {
    const result = evaluateUpdate([subBalance()], [action({ quantity: 1000 }), action({ action: 'Subtract', quantity: 3000 })]);
    expect(result.problems).toEqual([]);
    expect(result.balances[0].remaining).toBe(5_118_000);
    expect(result.changes.map((c) => [c.change, c.before?.remaining, c.after?.remaining])).toEqual([
      ['Add', 5_120_000, 5_121_000],
      ['Subtract', 5_121_000, 5_118_000],
    ]);
  });

  it('lists every problem and changes nothing when any action is wrong', () => {
    const balances = [subBalance()];
    const result = evaluateUpdate(balances, [
      action({ quantity: 1000 }),
      action({ subBalanceInstId: 'nope' }),
      action({ subBalanceType: 'On-Net Voice', unitType: 'Min' }),
      action({ action: 'Subtract', quantity: 99_000_000 }),
    ]);
    expect(result.problems).toEqual([
      { path: 'balances[1].subBalanceInstId', reason: 'names no sub-balance of this subscription' },
      { path: 'balances[2].subBalanceType', reason: 'must be On-Net Data for this sub-balance' },
      { path: 'balances[2].unitType', reason: 'must be MB for this sub-balance' },
      { path: 'balances[3].quantity', reason: 'would take the remaining balance below zero (remaining 5121)' },
    ]);
    expect(result.changes).toEqual([]);
    expect(result.balances).toEqual(balances);
  });

  it('sees earlier actions: two Subtracts that together go below zero are refused', () => {
    const result = evaluateUpdate([subBalance({ remaining: 1000 })], [action({ action: 'Subtract', quantity: 600 }), action({ action: 'Subtract', quantity: 600 })]);
    expect(result.problems.map((p) => p.path)).toEqual(['balances[1].quantity']);
  });

  it('checks an action whose quantity was already refused against the subscription, without applying it', () => {
    const result = evaluateUpdate([subBalance()], [action({ quantity: undefined, unitType: 'GB' }), undefined]);
    expect(result.problems).toEqual([{ path: 'balances[0].unitType', reason: 'must be MB for this sub-balance' }]);
  });

  it('keeps remaining ≥ 0 and total = allocated + rollover whatever the actions', () => {
    const actions = fc.array(fc.record({ action: fc.constantFrom('Add' as const, 'Subtract' as const), quantity: fc.integer({ min: 1, max: 10_000_000 }) }), { maxLength: 20 });
    fc.assert(
      fc.property(actions, (list) => {
        const result = evaluateUpdate(
          [subBalance()],
          list.map((a) => action(a)),
        );
        for (const b of result.balances) {
          expect(b.remaining).toBeGreaterThanOrEqual(0);
          expect(totalOf(b)).toBe(b.allocated + b.rollover);
        }
        const net = list.reduce((sum, a) => sum + (a.action === 'Add' ? a.quantity : -a.quantity), 0);
        if (result.problems.length === 0) expect(result.balances[0].remaining).toBe(5_120_000 + net);
        else expect(result.balances[0].remaining).toBe(5_120_000);
      }),
    );
  });
});
