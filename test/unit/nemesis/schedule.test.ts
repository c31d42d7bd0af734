import { DURATION_MS, FAULT_KINDS, scheduleFor } from '../../nemesis/support/schedule';

describe('nemesis schedule', () => {
  const options = { totalMs: 120_000, workers: 2, brokers: 3 };

  it('is the same for the same seed, and another for another seed', () => {
    expect(scheduleFor({ ...options, seed: 51 })).toEqual(scheduleFor({ ...options, seed: 51 }));
    expect(scheduleFor({ ...options, seed: 52 })).not.toEqual(scheduleFor({ ...options, seed: 51 }));
  });

  it('lays faults one after another inside the run, each within its kind’s duration and targets', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const schedule = scheduleFor({ ...options, seed });
      expect(schedule.length).toBeGreaterThan(3);
      let previousEnd = 0;
      for (const fault of schedule) {
        const [low, high] = DURATION_MS[fault.kind];
        expect(fault.durationMs).toBeGreaterThanOrEqual(low);
        expect(fault.durationMs).toBeLessThanOrEqual(high);
        expect(fault.atMs).toBeGreaterThan(previousEnd);
        const end = fault.atMs + (fault.kind === 'rolling-restart' ? fault.durationMs * options.workers : fault.durationMs);
        expect(end).toBeLessThanOrEqual(options.totalMs);
        expect(fault.target).toBeLessThan(fault.kind.startsWith('broker') || fault.kind.startsWith('kafka') ? options.brokers : fault.kind.startsWith('redis') ? 1 : options.workers);
        previousEnd = end;
      }
    }
  });

  it('fills a long run: a ten-minute schedule has faults into its last minute', () => {
    for (const seed of [1, 2, 3, 51]) {
      const schedule = scheduleFor({ seed, totalMs: 600_000, workers: 2, brokers: 3 });
      expect(Math.max(...schedule.map((f) => f.atMs))).toBeGreaterThan(540_000);
    }
  });

  it('draws every kind over a few seeds, and only the kinds asked for', () => {
    const drawn = new Set(Array.from({ length: 20 }, (_, seed) => scheduleFor({ ...options, seed }).map((f) => f.kind)).flat());
    expect([...drawn].sort()).toEqual([...FAULT_KINDS].sort());
    expect(new Set(scheduleFor({ ...options, seed: 7, kinds: ['redis-freeze'] }).map((f) => f.kind))).toEqual(new Set(['redis-freeze']));
  });
});
