import { lastRefused, probeBudget } from '../../../src/adapters/kafka/refused-batch-locator';

/**
 * The search for a refused batch's last offset, on a log of offsets [0, end) where the batch spans
 * [first, last]: every answer exact, within the probe budget.
 */
async function search(first: bigint, last: bigint, end: bigint) {
  const probed: bigint[] = [];
  const found = await lastRefused(first, end, async (offset) => {
    expect(offset > first && offset < end).toBe(true); // the first offset is known refused; the end holds no batch
    probed.push(offset);
    return offset <= last;
  });
  return { found, probes: probed.length };
}

describe('lastRefused', () => {
  it('finds the last offset of every batch on small logs', async () => {
    for (let end = 1n; end <= 24n; end++)
      for (let first = 0n; first < end; first++)
        for (let last = first; last < end; last++) {
          const { found, probes } = await search(first, last, end);
          expect([first, last, end, found]).toEqual([first, last, end, last]);
          expect(probes).toBeLessThanOrEqual(probeBudget(end - first));
        }
  });

  it('finds a batch of 50,000 records among millions of offsets in about 2 × log2 probes', async () => {
    const { found, probes } = await search(1_000_000n, 1_049_999n, 9_000_000n);
    expect(found).toBe(1_049_999n);
    expect(probes).toBeLessThanOrEqual(2 * 17 + 2);
    expect(probeBudget(8_000_000n)).toBe(2 * (23 + 1));
  });

  it('costs one probe for a batch of one record', async () => {
    expect(await search(5n, 5n, 100n)).toEqual({ found: 5n, probes: 1 });
    expect(await search(5n, 5n, 6n)).toEqual({ found: 5n, probes: 0 });
  });
});
