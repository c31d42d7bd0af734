import { ConfigError, EnvReader, type Env } from '../src/config/env';

/** `npm run bench` (bench/run.ts): what to measure and for how long (docs/benchmarks.md). */
export interface BenchConfig {
  /** BENCH_QUICK: a shortened run (short phases, fewer scenarios) to smoke-test the benchmark in a minute or two. */
  quick: boolean;
  /** Active subscriptions of the main workload. */
  subscriptions: number;
  /** Larger populations the subscription-growth scenario fills up to, in order (empty: skipped). */
  growthSteps: number[];
  /** Partitions of the command and reply topics in the main scenario. */
  partitions: number;
  /** Offered loads (commands/s) of the open-loop latency runs. */
  rates: number[];
  /** Calls in flight in the closed-loop saturation runs. */
  inFlight: number;
  /** Seconds measured per phase (after a warm-up of a third of it). */
  phaseSeconds: number;
  /** Scenarios to leave out: any of echo, contract, redis, scaling, growth, forged, tracing, delivery, charging. */
  skip: string[];
  /** Offered rate of forged-token records in the forged-flood scenario (valid traffic beside it at 500/s). */
  forgedRate: number;
  /** When set, the service worker runs with --cpu-prof and writes its profile here. */
  cpuProfileDir?: string;
  /** Where the results (JSON and the printed tables) are written. */
  outDir: string;
  /** BENCH_COMMIT_INTERVALS: KAFKA_COMMIT_INTERVAL_MS values the delivery scenario also runs exactly once with. */
  commitIntervals: number[];
}

function intervals(raw: string): number[] {
  if (raw.trim() === 'none') return [];
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 0)) throw new ConfigError('BENCH_COMMIT_INTERVALS', 'comma-separated whole numbers of ms, or none', raw);
  return values;
}

export function loadBenchConfig(env: Env = process.env): BenchConfig {
  const reader = new EnvReader(env);
  const quick = reader.boolean('BENCH_QUICK', false);
  const numbers = (variable: string, fallback: string): number[] => {
    const raw = reader.string(variable, fallback).trim();
    if (raw === 'none') return [];
    const values = raw.split(',').map((v) => Number(v.trim()));
    if (values.some((v) => !Number.isInteger(v) || v < 1)) throw new ConfigError(variable, 'comma-separated whole numbers above 0, or none', raw);
    return values;
  };
  const skip = reader
    .string('BENCH_SKIP', 'none')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'none');
  const unknown = skip.filter((s) => !['echo', 'contract', 'redis', 'scaling', 'growth', 'forged', 'tracing', 'delivery', 'charging'].includes(s));
  if (unknown.length > 0) throw new ConfigError('BENCH_SKIP', 'a comma-separated list of echo, contract, redis, scaling, growth, forged, tracing, delivery, charging', env.BENCH_SKIP);
  return {
    quick,
    subscriptions: reader.integer('BENCH_SUBSCRIPTIONS', 10_000, 100, 10_000_000),
    growthSteps: numbers('BENCH_GROWTH', quick ? '30000' : '100000,300000'),
    partitions: reader.integer('BENCH_PARTITIONS', 4, 1, 64),
    rates: numbers('BENCH_RATES', '500,1000,2000'),
    inFlight: reader.integer('BENCH_IN_FLIGHT', 256, 1, 10_000),
    phaseSeconds: reader.integer('BENCH_PHASE_SECONDS', quick ? 4 : 12, 1, 3600),
    skip,
    forgedRate: reader.integer('BENCH_FORGED_RATE', 20_000, 1, 1_000_000),
    cpuProfileDir: reader.optionalString('BENCH_CPU_PROF'),
    outDir: reader.string('BENCH_OUT', '.bench'),
    commitIntervals: intervals(reader.string('BENCH_COMMIT_INTERVALS', 'none')),
  };
}
