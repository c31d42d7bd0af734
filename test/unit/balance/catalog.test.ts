import { buildCatalog, carryOverTypesOf, CatalogError, creditValidityOf } from '../../../src/domain/catalog/catalog';
import defaultCatalog from '../../../config/catalog.json';

const problemsOf = (document: unknown) => {
  try {
    buildCatalog(document);
  } catch (error) {
    if (error instanceof CatalogError) return error.problems;
    throw error;
  }
  throw new Error('the catalog was accepted');
};

const bucket = (overrides: Record<string, unknown> = {}) => ({
  bucketRefId: 'P1',
  name: 'Plan bucket',
  kind: 'PRIMARY',
  validityCycles: 0,
  rolloverCap: 0.5,
  allowances: [{ subBalanceType: 'On-Net Data', unitType: 'MB', amount: 1024 }],
  ...overrides,
});

describe('product catalog', () => {
  it('accepts the shipped default catalog: every plan has a PRIMARY bucket', () => {
    const catalog = buildCatalog(defaultCatalog);
    expect(catalog.plans.size).toBeGreaterThan(0);
    for (const plan of catalog.plans.values()) expect(catalog.buckets.get(plan.primaryBucketRefId)?.kind).toBe('PRIMARY');
    expect([...catalog.buckets.values()].some((b) => b.kind === 'ADDON')).toBe(true);
  });

  it('takes usage thresholds as ascending whole percents 1..100', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    expect(buildCatalog({ plans, buckets: [bucket({ thresholds: [50, 80, 100] })] }).buckets.get('P1')?.thresholds).toEqual([50, 80, 100]);
    for (const thresholds of [[80, 50], [0, 100], [80, 101], [80.5], [80, 80], 'high']) {
      expect(problemsOf({ plans, buckets: [bucket({ thresholds })] })).toContainEqual({
        path: 'buckets[0].thresholds',
        reason: 'must list whole percents from 1 to 100 in ascending order',
      });
    }
  });

  it('takes a first-cycle allocation (prorate, full, none) and whether a partial first cycle rolls over', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    expect(buildCatalog({ plans, buckets: [bucket({ firstCycle: 'prorate', rolloverFromFirstCycle: true })] }).buckets.get('P1')).toMatchObject({
      firstCycle: 'prorate',
      rolloverFromFirstCycle: true,
    });
    expect(problemsOf({ plans, buckets: [bucket({ firstCycle: 'half', rolloverFromFirstCycle: 'yes' })] })).toEqual(
      expect.arrayContaining([
        { path: 'buckets[0].firstCycle', reason: 'must be one of prorate, full, none' },
        { path: 'buckets[0].rolloverFromFirstCycle', reason: 'must be true or false' },
      ]),
    );
  });

  it('takes per subBalanceType whether purchased credit carries over at renewal (default: it does not)', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    const catalog = buildCatalog({ plans, buckets: [bucket()], purchasedCredit: { 'On-Net Data': { carryOver: true }, 'On-Net SMS': { carryOver: false } } });
    expect(carryOverTypesOf(catalog)).toEqual(['On-Net Data']);
    expect(carryOverTypesOf(buildCatalog({ plans, buckets: [bucket()] }))).toEqual([]);
    expect(carryOverTypesOf(buildCatalog(defaultCatalog))).toEqual(['On-Net Voice', 'On-Net Data']);
    expect(problemsOf({ plans, buckets: [bucket()], purchasedCredit: { 'On-Net Fax': { carryOver: true }, 'On-Net Data': { carryOver: 'yes' } } })).toEqual([
      { path: 'purchasedCredit.On-Net Fax', reason: 'must be one of On-Net Voice, On-Net SMS, On-Net MMS, On-Net Data' },
      { path: 'purchasedCredit.On-Net Data.carryOver', reason: 'must be true or false' },
    ]);
    expect(problemsOf({ plans, buckets: [bucket()], purchasedCredit: [] })).toEqual([{ path: 'purchasedCredit', reason: 'must be an object keyed by subBalanceType' }]);
  });

  it('takes an add-on validity in days or cycles; validityCycles (older catalogs) is read as cycles, 0 as none', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    const addOn = (overrides: Record<string, unknown>) => bucket({ bucketRefId: 'A1', kind: 'ADDON', validityCycles: undefined, ...overrides });
    const validityOf = (overrides: Record<string, unknown>) => buildCatalog({ plans, buckets: [bucket(), addOn(overrides)] }).buckets.get('A1')!;
    expect(validityOf({ validity: { days: 7 } }).validity).toEqual({ days: 7 });
    expect(validityOf({ validity: { cycles: 1 } }).validity).toEqual({ cycles: 1 });
    expect(validityOf({ validityCycles: 2 })).toMatchObject({ validity: { cycles: 2 } });
    expect(validityOf({ validityCycles: 2 })).not.toHaveProperty('validityCycles');
    expect(validityOf({ validityCycles: 0 }).validity).toBeUndefined();
    expect(validityOf({}).validity).toBeUndefined();
    for (const validity of [{ days: 0 }, { cycles: 1.5 }, { weeks: 1 }, { days: 1, cycles: 1 }, 7]) {
      expect(problemsOf({ plans, buckets: [bucket(), addOn({ validity })] })).toEqual([
        { path: 'buckets[1].validity', reason: 'must be { "days": N } or { "cycles": N } with N a whole number from 1' },
      ]);
    }
    expect(problemsOf({ plans, buckets: [bucket({ validityCycles: undefined, validity: { days: 30 } })] })).toContainEqual({
      path: 'buckets[0].validity',
      reason: 'must be absent for a PRIMARY bucket (renewed every cycle)',
    });
    expect(problemsOf({ plans, buckets: [bucket(), addOn({ validity: { days: 1 }, validityCycles: 1 })] })).toEqual([
      { path: 'buckets[1].validity', reason: 'must not be given with validityCycles' },
    ]);
  });

  it('takes per subBalanceType how long purchased credit lasts', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    const catalog = buildCatalog({ plans, buckets: [bucket()], purchasedCredit: { 'On-Net Data': { carryOver: true, validity: { days: 90 } }, 'On-Net SMS': { carryOver: false } } });
    expect(creditValidityOf(catalog)).toEqual({ 'On-Net Data': { days: 90 } });
    expect(problemsOf({ plans, buckets: [bucket()], purchasedCredit: { 'On-Net Data': { carryOver: true, validity: { months: 1 } } } })).toEqual([
      { path: 'purchasedCredit.On-Net Data.validity', reason: 'must be { "days": N } or { "cycles": N } with N a whole number from 1' },
    ]);
  });

  it('takes a plan bill cycle time zone as an IANA name', () => {
    const plan = { wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' };
    expect(buildCatalog({ plans: [{ ...plan, billCycleTimeZone: 'America/New_York' }], buckets: [bucket()] }).plans.get('WP1')?.billCycleTimeZone).toBe('America/New_York');
    expect(problemsOf({ plans: [{ ...plan, billCycleTimeZone: 'Mars/Olympus' }], buckets: [bucket()] })).toEqual([
      { path: 'plans[0].billCycleTimeZone', reason: 'must be an IANA time zone name (e.g. America/New_York)' },
    ]);
  });

  it('refuses two plans with one primary bucket: a swap to it must name one plan', () => {
    expect(
      problemsOf({
        plans: [
          { wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' },
          { wholesalePlanId: 'WP2', name: 'Two', primaryBucketRefId: 'P1' },
        ],
        buckets: [bucket()],
      }),
    ).toEqual([{ path: 'plans[1].primaryBucketRefId', reason: 'is already the primary bucket of WP1' }]);
  });

  it('lists every problem of a bad catalog at once, with its path', () => {
    const problems = problemsOf({
      plans: [
        { wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'A1' },
        { wholesalePlanId: 'WP2', name: 'Two', primaryBucketRefId: 'missing' },
        { wholesalePlanId: 'WP1', name: 'Again', primaryBucketRefId: 'P1' },
        { name: 'No id' },
      ],
      buckets: [
        bucket(),
        bucket({ bucketRefId: 'A1', kind: 'ADDON', validityCycles: 1, rolloverCap: 0 }),
        bucket({ bucketRefId: 'X', kind: 'PRIMARY', validityCycles: 2, rolloverCap: 1.5, allowances: [] }),
        bucket({
          bucketRefId: 'Y',
          kind: 'BONUS',
          allowances: [
            { subBalanceType: 'On-Net Voice', unitType: 'MB', amount: 10 },
            { subBalanceType: 'Roaming Data', unitType: 'MB', amount: -1 },
            { subBalanceType: 'On-Net SMS', unitType: 'SMS', amount: 0.0001 },
          ],
        }),
        bucket({ bucketRefId: 'P1' }),
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'plans[0].primaryBucketRefId', reason: 'names an ADDON bucket, not a PRIMARY one' },
        { path: 'plans[1].primaryBucketRefId', reason: 'names no bucket (missing)' },
        { path: 'plans[2].wholesalePlanId', reason: 'repeats WP1' },
        { path: 'plans[3]', reason: expect.stringContaining('wholesalePlanId') },
        { path: 'buckets[2].validityCycles', reason: 'must be 0 for a PRIMARY bucket (renewed every cycle)' },
        { path: 'buckets[2].rolloverCap', reason: expect.stringContaining('from 0 to 1') },
        { path: 'buckets[2].allowances', reason: 'must list at least one allowance' },
        { path: 'buckets[3].kind', reason: 'must be PRIMARY or ADDON' },
        { path: 'buckets[3].allowances[0].unitType', reason: 'must be Min for On-Net Voice' },
        { path: 'buckets[3].allowances[1].subBalanceType', reason: expect.stringContaining('must be one of') },
        { path: 'buckets[3].allowances[1].amount', reason: 'must be greater than zero' },
        { path: 'buckets[3].allowances[2].amount', reason: 'must have at most 3 decimals' },
        { path: 'buckets[4].bucketRefId', reason: 'repeats P1' },
      ]),
    );
    expect(problems).toHaveLength(13);
  });

  it('refuses a bucketRefId with a separator of the compact Redis records (| , ; or white space)', () => {
    const plans = [{ wholesalePlanId: 'WP1', name: 'One', primaryBucketRefId: 'P1' }];
    const ids = ['A|1', 'A,1', 'A;1', 'A 1', 'A\t1', ' A1'];
    const problems = problemsOf({ plans, buckets: [bucket(), ...ids.map((bucketRefId) => bucket({ bucketRefId, kind: 'ADDON', validityCycles: 1 }))] });
    expect(problems).toEqual(ids.map((_, i) => ({ path: `buckets[${i + 1}].bucketRefId`, reason: 'must not contain |, comma, ; or white space' })));
    expect(() => buildCatalog({ plans, buckets: [bucket(), bucket({ bucketRefId: 'A-1_x.2', kind: 'ADDON', validityCycles: 1 })] })).not.toThrow();
  });

  it('says clearly when the document is not a catalog', () => {
    expect(problemsOf(null)).toEqual([{ path: '', reason: 'must be an object with plans and buckets' }]);
    expect(problemsOf({})).toEqual([
      { path: 'buckets', reason: 'must list at least one bucket' },
      { path: 'plans', reason: 'must list at least one plan' },
    ]);
  });
});
