import { firstRefused, lastRefused, probeBudget, type Probe } from '../../../src/adapters/kafka/refused-batch-locator';

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

/** A partition's batches, back to back from offset 0: size in bytes, records, and whether refused (ours or another). */
interface Batch {
  bytes: number;
  records: number;
  refused?: 'ours' | 'other';
}

/** A one-partition log answering probes as the broker and the client's decoding do (see firstRefused's doc). */
function logOf(batches: Batch[]) {
  let first = 0n;
  const placed = batches.map((b) => {
    const at = { ...b, first, last: first + BigInt(b.records) - 1n };
    first = at.last + 1n;
    return at;
  });
  const probed: [bigint, number][] = [];
  const probe = async (offset: bigint, window: number): Promise<Probe> => {
    probed.push([offset, window]);
    const from = placed.findIndex((b) => b.last >= offset);
    if (from < 0) return { decoded: undefined };
    const returned = [placed[from]]; // the first batch whole, whatever the window
    let bytes = placed[from].bytes;
    for (const b of placed.slice(from + 1)) {
      if (bytes + b.bytes > window) break; // a partial batch is not decoded
      returned.push(b);
      bytes += b.bytes;
    }
    const refused = returned.find((b) => b.refused);
    if (refused) return { refused: refused.refused! };
    return { decoded: { next: returned.at(-1)!.last + 1n, bytes } };
  };
  return { placed, probe, probed };
}

describe('firstRefused', () => {
  it('finds a refused batch right at the next offset with one probe', async () => {
    const log = logOf([
      { bytes: 300_000, records: 1, refused: 'ours' },
      { bytes: 100, records: 3 },
    ]);
    expect(await firstRefused(0n, 1024 * 1024, log.probe)).toBe(0n);
    expect(log.probed).toEqual([[0n, 1]]);
  });

  it('walks over the good batches the failed fetch never delivered, in doubling windows', async () => {
    const good = Array.from({ length: 5000 }, () => ({ bytes: 120, records: 3 }));
    const log = logOf([...good, { bytes: 70_000, records: 50_000, refused: 'ours' }, ...good]);
    expect(await firstRefused(0n, 1024 * 1024, log.probe)).toBe(15_000n);
    expect(log.probed.length).toBeLessThanOrEqual(2 * probeBudget(BigInt(1024 * 1024)));
    expect(log.probed.length).toBeLessThanOrEqual(30); // 26 when written: 600 KB of small batches walked
  });

  it('every refused batch on small logs: found exactly within the budget', async () => {
    for (let before = 0; before < 30; before++)
      for (const size of [1, 50, 500]) {
        const log = logOf([
          ...Array.from({ length: before }, (_, i) => ({ bytes: 10 + (i % 7) * 20, records: 1 + (i % 3) })),
          { bytes: size, records: 2, refused: 'ours' },
          { bytes: 10, records: 1 },
        ]);
        const expected = log.placed[before].first;
        expect(await firstRefused(0n, 64 * 1024, log.probe)).toBe(expected);
        expect(log.probed.length).toBeLessThanOrEqual(2 * probeBudget(64n * 1024n));
      }
  });

  it('is not the culprit when another refused batch comes first, or the refusal lies beyond what the stream fetched', async () => {
    const other = logOf([
      { bytes: 100, records: 1 },
      { bytes: 100, records: 1, refused: 'other' },
      { bytes: 100, records: 1, refused: 'ours' },
    ]);
    expect(await firstRefused(0n, 1024, other.probe)).toBeUndefined();
    const far = logOf([...Array.from({ length: 100 }, () => ({ bytes: 100, records: 1 })), { bytes: 100, records: 1, refused: 'ours' }]);
    expect(await firstRefused(0n, 5_000, far.probe)).toBeUndefined();
    expect(await firstRefused(0n, 20_000, far.probe)).toBe(100n);
    const clean = logOf([{ bytes: 100, records: 1 }]);
    expect(await firstRefused(0n, 5_000, clean.probe)).toBeUndefined();
  });
});
