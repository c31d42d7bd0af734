import { buildCatalog } from '../../../src/domain/catalog/catalog';
import { activationPlan, datedSeeds, firstCycleSeedsOf } from '../../../src/domain/balance/seeds';
import defaultCatalog from '../../../config/catalog.json';

const catalog = buildCatalog(defaultCatalog);
const unl = catalog.buckets.get('1000002')!;

describe('first-cycle seeds', () => {
  it('a full cycle (activation on its first day) seeds the full allocation, unmarked', () => {
    expect(firstCycleSeedsOf(unl, { daysLeft: 31, daysInCycle: 31 }).map((s) => [s.allocated, s.firstCycle])).toEqual([
      [5_000_000, undefined],
      [10_000_000, undefined],
      [1_000_000, undefined],
      [51_200_000, undefined],
    ]);
  });

  it('a partial cycle: prorated, marked with the full allocation and no rollover (the catalog default)', () => {
    const [voice] = firstCycleSeedsOf(unl, { daysLeft: 1, daysInCycle: 31 });
    expect(voice).toMatchObject({ allocated: 161_290, rolloverCap: 5_000_000, firstCycle: { allocation: 5_000_000, rollover: false } });
  });

  it('full with rollover allowed behaves as a full cycle; none grants nothing until the first renewal', () => {
    expect(firstCycleSeedsOf({ ...unl, firstCycle: 'full', rolloverFromFirstCycle: true }, { daysLeft: 3, daysInCycle: 30 })[0].firstCycle).toBeUndefined();
    expect(firstCycleSeedsOf({ ...unl, firstCycle: 'none' }, { daysLeft: 3, daysInCycle: 30 })[0]).toMatchObject({ allocated: 0, firstCycle: { allocation: 5_000_000 } });
  });

  it('a dated add-on is a one-off grant for its own period: full in a partial first cycle, its period fixed from the moment it is added', () => {
    const plan = activationPlan(catalog, catalog.plans.get('WP-DATA')!, ['2000001'], { daysLeft: 1, daysInCycle: 31 });
    const [, passSeed] = plan.seeds;
    expect(passSeed).toMatchObject({ bucketRefId: '2000001', allocated: 1_024_000, validity: { cycles: 1 } });
    expect(passSeed.firstCycle).toBeUndefined();
    const [, dated] = datedSeeds(plan.seeds, Date.parse('2026-03-31T12:00:00Z'), 'UTC');
    expect(dated).toMatchObject({ validFor: { start: Date.parse('2026-03-31T12:00:00Z'), end: Date.parse('2026-04-30T12:00:00Z') } });
    expect(dated).not.toHaveProperty('validity');
  });

  it('activation seeds the primary and the add-ons by their own buckets', () => {
    const plan = activationPlan(catalog, catalog.plans.get('WP-UNL')!, ['2000002'], { daysLeft: 10, daysInCycle: 30 });
    expect(plan.seeds.map((s) => [s.bucketRefId, s.allocated, s.firstCycle?.allocation])).toEqual([
      ['1000002', 1_666_666, 5_000_000],
      ['1000002', 3_333_333, 10_000_000],
      ['1000002', 333_333, 1_000_000],
      ['1000002', 17_066_666, 51_200_000],
      ['2000002', 5_120_000, 5_120_000], // firstCycle full, but its partial cycle does not roll over
    ]);
  });
});
