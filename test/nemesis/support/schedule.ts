// The nemesis's schedule: faults drawn from a seed (fast-check's generator, so the same seed gives the same
// schedule on every machine), one at a time with a gap before each, until the run's time is spent. Pure.
import fc from 'fast-check';

export const FAULT_KINDS = [
  'worker-kill',
  'worker-pause',
  'rolling-restart',
  'broker-kill',
  'broker-freeze',
  'broker-restart',
  'redis-stop',
  'redis-freeze',
  'redis-delay',
  'redis-partition',
  'redis-drop',
  'redis-failover',
  'kafka-delay',
  'kafka-partition',
  'kafka-drop',
  'webhook-down',
  'webhook-slow',
  'clock-skew',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ScheduledFault {
  kind: FaultKind;
  /** When it begins, from the start of the run (ms). */
  atMs: number;
  /** How long the process stays dead, stopped or frozen (ms); a rolling restart's pause between its workers. */
  durationMs: number;
  /** Which worker (of the run's workers) or broker (of the cluster's) it strikes, as an index. */
  target: number;
}

/**
 * How long each kind lasts. A paused worker stays paused past its 10 s session (the group moves its
 * partitions; it comes back a zombie); a frozen broker past the cluster's 4 s broker session (its leaders move).
 */
export const DURATION_MS: Record<FaultKind, [number, number]> = {
  'worker-kill': [500, 3000],
  'worker-pause': [11_000, 13_000],
  'rolling-restart': [500, 1500],
  'broker-kill': [2000, 8000],
  'broker-freeze': [5000, 9000],
  'broker-restart': [0, 0],
  'redis-stop': [2000, 6000],
  'redis-freeze': [2000, 5000],
  // through the workers' TCP proxy: every chunk 100–500 ms late (the delay is drawn from the duration's thousandths), then none
  'redis-delay': [3000, 6000],
  // the proxy black-holes both ways (connections stay open), then cuts them
  'redis-partition': [2000, 5000],
  // every connection cut at once
  'redis-drop': [0, 0],
  // the primary SIGKILLed, its replica promoted and the proxy pointed at it; the old primary comes back as the new replica
  'redis-failover': [0, 0],
  // between the workers and one broker (its relayed listener's proxy): every chunk 50–300 ms late, then none
  'kafka-delay': [3000, 8000],
  // the workers' connections to one broker black-holed (open, nothing passes), then cut
  'kafka-partition': [2000, 8000],
  // every connection between the workers and every broker cut at once
  'kafka-drop': [0, 0],
  // the partner's webhook endpoint refuses connections, then listens again
  'webhook-down': [2000, 6000],
  // the endpoint answers 300–1500 ms late (the dispatcher gives up after 1 s: some deliveries time out and come again)
  'webhook-slow': [3000, 8000],
  // a worker started again with its wall clock 30–150 s ahead or behind (libfaketime; its timers keep real
  // time), for this long, then started again with the true one: the schedulers' clocks disagree meanwhile
  'clock-skew': [10_000, 20_000],
};

/** The gap before each fault (ms): the workload runs undisturbed meanwhile. */
const GAP_MS: [number, number] = [1000, 4000];

export interface ScheduleOptions {
  seed: number;
  /** No fault begins after this (ms from the start), nor lasts past it. */
  totalMs: number;
  workers: number;
  brokers: number;
  /** The kinds to draw from (all by default). */
  kinds?: readonly FaultKind[];
}

const within = ([low, high]: [number, number], thousandths: number) => Math.round(low + ((high - low) * thousandths) / 1000);

export function scheduleFor({ seed, totalMs, workers, brokers, kinds = FAULT_KINDS }: ScheduleOptions): ScheduledFault[] {
  const draw = fc.record({ kind: fc.constantFrom(...kinds), gap: fc.integer({ min: 0, max: 1000 }), length: fc.integer({ min: 0, max: 1000 }), target: fc.nat() });
  // without bias: fast-check otherwise favours the ends of each range (every fault at its shortest)
  // enough draws to fill the run (a fault and its gap take 1 s at the least); 64 for runs up to 64 s and more
  const count = Math.max(64, Math.ceil(totalMs / 1000));
  const [draws] = fc.sample(fc.noBias(fc.array(draw, { minLength: count, maxLength: count })), { seed, numRuns: 1 });
  const schedule: ScheduledFault[] = [];
  let clock = 0;
  for (const { kind, gap, length, target } of draws) {
    const atMs = clock + within(GAP_MS, gap);
    const durationMs = within(DURATION_MS[kind], length);
    // a rolling restart takes every worker in turn: its pause is paid once per worker
    const endMs = atMs + (kind === 'rolling-restart' ? durationMs * workers : durationMs);
    if (endMs > totalMs) continue;
    const targets = kind.startsWith('worker') || kind === 'rolling-restart' || kind === 'clock-skew' ? workers : kind.startsWith('broker') || kind.startsWith('kafka') ? brokers : 1;
    schedule.push({ kind, atMs, durationMs, target: target % targets });
    clock = endMs;
  }
  return schedule;
}

/** A clock-skew fault's offset (s): 30–150, ahead when its duration's milliseconds are even, else behind. */
export const skewSeconds = (durationMs: number): number => (30 + (durationMs % 121)) * (durationMs % 2 === 0 ? 1 : -1);

/** One line per fault: `+12.3 s worker-pause #1 for 11.8 s`, `+40.1 s clock-skew #0 for 14.2 s (clock -61 s)`. */
export const describeSchedule = (schedule: ScheduledFault[]): string[] =>
  schedule.map(
    (f) =>
      `+${(f.atMs / 1000).toFixed(1)} s ${f.kind} #${f.target}${f.durationMs > 0 ? ` for ${(f.durationMs / 1000).toFixed(1)} s` : ''}` +
      (f.kind === 'clock-skew' ? ` (clock ${skewSeconds(f.durationMs) > 0 ? '+' : ''}${skewSeconds(f.durationMs)} s)` : ''),
  );
