import { keptMemory } from '../../../bench/kept-memory';
import type { MemorySnapshot } from '../../../bench/redis-probe';

/** Redis 7.0's MEMORY STATS: a hash table costs a 24-byte entry per key and 8 bytes a slot. */
const table = (keys: number, slots: number) => ({ bytes: keys * 24 + slots * 8, keys });
const snapshot = (used: number, main: { bytes: number; keys: number }, expires: { bytes: number; keys: number }, transient = 0): MemorySnapshot => ({ used, transient, main, expires });

describe("the benchmark's memory kept over a window", () => {
  it("is used_memory growth when the tables took no step beyond the new keys' share", () => {
    // 5,000 keys with an expiry added into tables that did not double: their growth is exactly their share
    const before = snapshot(1_000_000, table(40_000, 65_536), table(20_000, 32_768));
    const after = snapshot(1_500_000, table(45_000, 65_536), table(25_000, 32_768));
    const kept = keptMemory(before, after);
    expect(kept.hashTableGrowth).toBe(2 * 5_000 * 24);
    expect(kept.hashTableShare).toBeCloseTo(5_000 * (after.main.bytes / 45_000) + 5_000 * (after.expires.bytes / 25_000));
    expect(kept.kept).toBeCloseTo(500_000 - kept.hashTableGrowth + kept.hashTableShare);
    expect(kept.keysAdded).toBe(5_000);
  });

  it('leaves out client and AOF buffers that grew with the commands in flight', () => {
    const tables = table(0, 0);
    const kept = keptMemory(snapshot(1_000_000, tables, tables, 10_000), snapshot(1_300_000, tables, tables, 110_000));
    expect(kept.transient).toBe(100_000);
    expect(kept.kept).toBe(200_000);
  });

  it('gives the same kept bytes whether or not the tables doubled inside the window', () => {
    // the same 10,000 keys with an expiry, the same data (3 MB): once the doubling falls inside, once before it
    const end = snapshot(0, table(70_000, 131_072), table(70_000, 131_072));
    const doubledInside = keptMemory(snapshot(0, table(60_000, 65_536), table(60_000, 65_536)), { ...end, used: 3_000_000 + (table(70_000, 131_072).bytes - table(60_000, 65_536).bytes) * 2 });
    const doubledBefore = keptMemory(snapshot(0, table(60_000, 131_072), table(60_000, 131_072)), { ...end, used: 3_000_000 + (table(70_000, 131_072).bytes - table(60_000, 131_072).bytes) * 2 });
    expect(doubledInside.usedGrowth - doubledBefore.usedGrowth).toBe(2 * 65_536 * 8);
    expect(doubledInside.kept).toBeCloseTo(doubledBefore.kept);
    expect(doubledInside.kept).toBeCloseTo(3_000_000 + 2 * 10_000 * (table(70_000, 131_072).bytes / 70_000));
  });
});
