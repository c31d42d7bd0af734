import { MultipleErrors, UserError } from '@platformatic/kafka';
import { BatchRefused, batchRefusalIn, refusedBatchDetail, refusalRecord } from '../../../src/adapters/kafka/refused-batch';

const LIMIT = 'gzip batch inflates beyond 65536 bytes (MAX_DECOMPRESSED_BATCH_BYTES)';

describe('the placeholder of a refused batch', () => {
  it("sits at the batch's last offset, without key or value, and names why and the offsets it spans", () => {
    const record = refusalRecord({ first: 100n, last: 102n, detail: LIMIT });
    expect([record.offset, record.key, record.value]).toEqual(['102', null, null]);
    expect(refusedBatchDetail(record)).toBe(`${LIMIT}; its 3 records at offsets 100–102 skipped`);
    expect(Number(record.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('counts one record in the singular, and a million without making a million', () => {
    expect(refusedBatchDetail(refusalRecord({ first: 7n, last: 7n, detail: 'zstd batch: why' }))).toBe('zstd batch: why; its 1 record at offsets 7–7 skipped');
    expect(refusedBatchDetail(refusalRecord({ first: 0n, last: 999_999n, detail: LIMIT }))).toBe(`${LIMIT}; its 1000000 records at offsets 0–999999 skipped`);
  });

  it("is read only when it carries this process's secret: a producer cannot forge one", () => {
    expect(refusedBatchDetail({ headers: { 'x-wholesale-batch-refused': Buffer.from('0123 gzip batch inflates beyond') } })).toBeUndefined();
    expect(refusedBatchDetail({ headers: {} })).toBeUndefined();
    expect(refusedBatchDetail({})).toBeUndefined();
    const { headers } = refusalRecord({ first: 1n, last: 2n, detail: 'why' });
    expect(refusedBatchDetail({ headers: { 'x-wholesale-batch-refused': [headers!['x-wholesale-batch-refused'] as Buffer] } })).toBe('why; its 2 records at offsets 1–2 skipped');
  });
});

describe('batchRefusalIn', () => {
  const refusal = new BatchRefused(LIMIT, 'f00d');

  it('finds the refusal itself, as a cause, or among aggregated errors, at any depth', () => {
    expect(batchRefusalIn(refusal)).toBe(refusal);
    expect(batchRefusalIn(new UserError('Failed to process a message.', { cause: refusal }))).toBe(refusal);
    expect(batchRefusalIn(new MultipleErrors('fetch failed 3 times.', [new Error('network'), refusal]))).toBe(refusal);
    expect(batchRefusalIn(new Error('outer', { cause: new MultipleErrors('inner', [new UserError('x', { cause: refusal })]) }))).toBe(refusal);
    expect(batchRefusalIn(new AggregateError([refusal]))).toBe(refusal);
  });

  it("finds one made by this module as loaded in another module registry (a test sandbox's)", () => {
    let foreign: Error | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- isolateModules needs a require to load a second copy of the module
      const { BatchRefused: OtherBatchRefused } = require('../../../src/adapters/kafka/refused-batch') as typeof import('../../../src/adapters/kafka/refused-batch');
      foreign = new OtherBatchRefused(LIMIT, 'f00d');
    });
    expect(foreign).not.toBeInstanceOf(BatchRefused);
    expect(batchRefusalIn(new UserError('wrapped', { cause: foreign }))).toBe(foreign);
    expect(batchRefusalIn(Object.assign(new Error('x'), { name: 'BatchRefused' }))).toBeUndefined();
  });

  it('finds nothing in other errors, nor in what is no error', () => {
    expect(batchRefusalIn(new MultipleErrors('fetch failed 2 times.', [new Error('a'), new UserError('b')]))).toBeUndefined();
    expect(batchRefusalIn(undefined)).toBeUndefined();
    expect(batchRefusalIn('BatchRefused')).toBeUndefined();
    const circular = new Error('a') as Error & { cause?: unknown };
    circular.cause = new Error('b', { cause: circular });
    expect(batchRefusalIn(circular)).toBeUndefined();
  });
});
