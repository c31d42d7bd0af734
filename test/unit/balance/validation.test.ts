import { buildCatalog } from '../../../src/domain/catalog/catalog';
import {
  accept,
  checkAddBuckets,
  checkCancelBuckets,
  checkHistory,
  checkSwapPrimary,
  checkUpdateActions,
  checkUpdateEnvelope,
  HISTORY_DEFAULT_LIMIT,
} from '../../../src/domain/balance/validation';
import { ServiceError } from '../../../src/contract/errors';
import defaultCatalog from '../../../config/catalog.json';

const catalog = buildCatalog(defaultCatalog);
const GPSI = '15551234567';

describe('balance command validation', () => {
  it('AddBuckets: every id must be an ADDON of the catalog, each problem listed with its index', () => {
    const result = checkAddBuckets({ gpsi: '123', bucketRefId: ['2000001', 'nope', '1000002', '', '2000001'] }, catalog);
    expect(result.problems).toEqual([
      { path: 'gpsi', reason: 'must be at least 11 characters' },
      { path: 'gpsi', reason: 'must match 11 to 15 digits' },
      { path: 'bucketRefId[3]', reason: 'must be at least 1 characters' },
      { path: 'bucketRefId[1]', reason: 'names no bucket in the catalog (nope)' },
      { path: 'bucketRefId[2]', reason: 'names a PRIMARY bucket (1000002), not an ADDON one' },
    ]);
  });

  it('AddBuckets: keeps repeats (each added bucket gets its own sub-balances)', () => {
    const buckets = accept(checkAddBuckets({ gpsi: GPSI, bucketRefId: ['2000001', '2000001'] }, catalog), 'C1');
    expect(buckets.map((b) => b.bucketRefId)).toEqual(['2000001', '2000001']);
  });

  it('AddBuckets and CancelBuckets: the list is required and not empty', () => {
    expect(checkAddBuckets({ gpsi: GPSI, bucketRefId: [] }, catalog).problems).toEqual([{ path: 'bucketRefId', reason: 'must have at least 1 item(s)' }]);
    expect(checkCancelBuckets({ gpsi: GPSI } as never).problems).toEqual([{ path: 'bucketRefId', reason: 'is required' }]);
  });

  it('SwapPrimaryBucket: a single PRIMARY bucket', () => {
    expect(checkSwapPrimary({ gpsi: GPSI, bucketRefId: '2000002' }, catalog).problems).toEqual([{ path: 'bucketRefId', reason: 'names an ADDON bucket (2000002), not a PRIMARY one' }]);
    const { bucket, plan } = accept(checkSwapPrimary({ gpsi: GPSI, bucketRefId: '1000002' }, catalog), 'C1');
    expect([bucket.kind, plan.wholesalePlanId]).toEqual(['PRIMARY', 'WP-UNL']);
  });

  it('SwapPrimaryBucket: the PRIMARY bucket must be offered by a plan, whose plan the subscription moves to', () => {
    const orphan = buildCatalog({ ...defaultCatalog, buckets: [...defaultCatalog.buckets, { ...defaultCatalog.buckets[0], bucketRefId: 'P-ORPHAN' }] });
    expect(checkSwapPrimary({ gpsi: GPSI, bucketRefId: 'P-ORPHAN' }, orphan).problems).toEqual([{ path: 'bucketRefId', reason: 'names a PRIMARY bucket (P-ORPHAN) that no plan offers' }]);
  });

  it('CancelBuckets: distinct ids with the path of their first occurrence', () => {
    expect(accept(checkCancelBuckets({ gpsi: GPSI, bucketRefId: ['A', 'B', 'A'] }), 'C1')).toEqual([
      { id: 'A', path: 'bucketRefId[0]' },
      { id: 'B', path: 'bucketRefId[1]' },
    ]);
  });

  it('QueryBalanceHistory: limit 1..500, 50 by default', () => {
    expect(checkHistory({ gpsi: GPSI }).value).toBe(HISTORY_DEFAULT_LIMIT);
    expect(checkHistory({ gpsi: GPSI, limit: 0 }).problems).toEqual([{ path: 'limit', reason: 'must be between 1 and 500' }]);
  });

  it('accept adds a missing wholesale customer to the problems and throws BAD_REQUEST listing all', () => {
    let thrown: unknown;
    try {
      accept(checkHistory({ gpsi: 'x', limit: 501 }), undefined);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).code).toBe('BAD_REQUEST');
    expect((thrown as ServiceError).problems.map((p) => p.path)).toEqual(['gpsi', 'gpsi', 'limit', 'headers.wholesaleCustomerId']);
  });

  it('UpdateBalances: the list is checked first, then each action field by field', () => {
    expect(checkUpdateEnvelope({ gpsi: GPSI, balances: [] }).problems).toEqual([{ path: 'balances', reason: 'must have at least 1 item(s)' }]);
    const update = checkUpdateActions([
      { subBalanceInstId: 'i1', balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: 1.5, unitType: 'MB' },
      { subBalanceInstId: 'i2', balanceType: 'Other', subBalanceType: 'On-Net Data', action: 'Multiply', quantity: Number.NaN, unitType: 'MB' },
      { subBalanceInstId: '', subBalanceType: 'On-Net Data', action: 'Subtract', quantity: -2, unitType: 'MB' },
      null,
    ]);
    expect(update.problems).toEqual([
      { path: 'balances[1].balanceType', reason: 'must be one of Main' },
      { path: 'balances[1].action', reason: 'must be one of Add, Subtract' },
      { path: 'balances[1].quantity', reason: 'must be a finite number' },
      { path: 'balances[2].subBalanceInstId', reason: 'must be at least 1 characters' },
      { path: 'balances[2].quantity', reason: 'must be greater than zero' },
      { path: 'balances[3]', reason: 'must be an object' },
    ]);
    expect(update.actions).toEqual([
      { subBalanceInstId: 'i1', subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Add', quantity: 1500 },
      { subBalanceInstId: 'i2', subBalanceType: 'On-Net Data', unitType: 'MB', action: undefined, quantity: undefined },
      undefined,
      undefined,
    ]);
  });
});
