import fc from 'fast-check';
import { allocatePorts } from '../../../dev/stack/net/ports';

/** Port picking with a fake "is it free?" — no sockets. */
describe('allocatePorts', () => {
  const sequence = (...values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length];
  };

  it('returns distinct ports inside the range, each with its companion ports free and none handed out twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 2 ** 31 }), async (count, seed) => {
        let state = seed;
        const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        const taken = new Set<number>();
        const ports = await allocatePorts({ count, offsets: [10000], range: [12000, 12100] }, async () => true, random, taken);
        expect(ports).toHaveLength(count);
        expect(new Set(ports).size).toBe(count);
        for (const port of ports) {
          expect(port).toBeGreaterThanOrEqual(12000);
          expect(port).toBeLessThan(12100);
          expect(taken.has(port + 10000)).toBe(true);
          expect(ports).not.toContain(port + 10000);
        }
      }),
    );
  });

  it('skips a port whose companion is busy, and ports handed out before', async () => {
    const busy = new Set([22001]); // the bus port of 12001
    const taken = new Set([12002]);
    const random = sequence(0.01, 0.02, 0.03); // 12001, 12002, 12003 in [12000, 12100)
    const ports = await allocatePorts({ count: 1, offsets: [10000], range: [12000, 12100] }, async (p) => !busy.has(p), random, taken);
    expect(ports).toEqual([12003]);
  });

  it('never returns a port whose companion would pass 65535', async () => {
    const ports = await allocatePorts({ count: 2, offsets: [10000], range: [55530, 55540] }, async () => true, sequence(0.9, 0.1, 0.5), new Set());
    for (const port of ports) expect(port + 10000).toBeLessThanOrEqual(65535);
  });

  it('gives up with a clear error when nothing is free', async () => {
    await expect(allocatePorts({ count: 2, range: [12000, 12010] }, async () => false, Math.random, new Set())).rejects.toThrow(/no 2 free loopback port\(s\).*12000-12009/);
  });
});
