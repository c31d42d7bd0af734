import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/app/config';
import { loadCatalog } from '../../src/app/service';
import { EnvReader } from '../../src/config/env';
import { provideStack } from '../../dev/stack';
import { benchAuth } from '../auth';
import { loadAverage, machineInfo } from '../machine';
import { cpuMsPerCommand } from '../report';
import { Scenario, type BenchContext, type WorkerKind } from '../scenario';
import { BENCH_CUSTOMERS, benchSubscription, Seeder } from '../seed';
import { MixedWorkload } from '../workload';
import { ROOT, TRIAL_CLIENTS, type TrialClientName } from './trial-clients';

/**
 * `npm run bench:trial`: the echo and contract floors (bench/floor-worker.ts) on kafkajs and on each
 * candidate client, side by side in one run (docs/decisions/kafka-client.md). The clients alternate
 * (A B C A B C …) so that a shared machine's load falls on all of them alike; the tables give each
 * client's median of TRIAL_RUNS runs and its ratio to kafkajs's median.
 * Per scenario: saturation (closed loop, TRIAL_IN_FLIGHT calls), then latency at TRIAL_RATE commands/s
 * (open loop), each with the worker's CPU over the measured window.
 */
const progress = (line: string) => process.stderr.write(`[trial ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface TrialRow {
  client: TrialClientName;
  kind: WorkerKind;
  run: number;
  saturation: number;
  saturationCpuMs?: number;
  p50: number;
  p99: number;
  rateCpuMs?: number;
  outcomes: Record<string, number>;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function renderTables(rows: TrialRow[], clients: readonly TrialClientName[], rate: number): string {
  const lines: string[] = [];
  for (const kind of ['echo', 'contract'] as const) {
    const of = (client: TrialClientName) => rows.filter((r) => r.kind === kind && r.client === client);
    const base = of('kafkajs');
    const ratio = (value: number, baseValue: number) => (base.length && baseValue > 0 ? ` (${(value / baseValue).toFixed(2)}×)` : '');
    lines.push(`### ${kind} floor (median of ${Math.max(...clients.map((c) => of(c).length))} runs; ratio to kafkajs)`, '');
    lines.push(`| client | saturation, commands/s | runs | worker CPU ms/command at saturation | p50 at ${rate}/s, ms | p99 at ${rate}/s, ms | runs (p99) | worker CPU ms/command at ${rate}/s |`);
    lines.push('|---|---:|---|---:|---:|---:|---|---:|');
    const baseSat = median(base.map((r) => r.saturation));
    const baseP99 = median(base.map((r) => r.p99));
    for (const client of clients) {
      const mine = of(client);
      if (mine.length === 0) continue;
      const sat = median(mine.map((r) => r.saturation));
      const p99 = median(mine.map((r) => r.p99));
      const cpu = (pick: (r: TrialRow) => number | undefined) => {
        const values = mine.map(pick).filter((v): v is number => v !== undefined);
        return values.length ? median(values).toFixed(3) : '–';
      };
      lines.push(
        `| ${client} | ${Math.round(sat)}${ratio(sat, baseSat)} | ${mine.map((r) => Math.round(r.saturation)).join(', ')} | ${cpu((r) => r.saturationCpuMs)} | ${median(mine.map((r) => r.p50)).toFixed(1)} | ${p99.toFixed(1)}${ratio(p99, baseP99)} | ${mine.map((r) => r.p99.toFixed(1)).join(', ')} | ${cpu((r) => r.rateCpuMs)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (major < 22 || (major === 22 && minor < 22)) throw new Error(`the trial runs on Node ≥ 22.22 (@platformatic/kafka 2.x); this is ${process.version}: use npm run bench:trial`);
  const reader = new EnvReader(process.env);
  const runs = reader.integer('TRIAL_RUNS', 3, 1, 20);
  const phaseSeconds = reader.integer('TRIAL_PHASE_SECONDS', 6, 1, 600);
  const rate = reader.integer('TRIAL_RATE', 1000, 1, 100_000);
  const inFlight = reader.integer('TRIAL_IN_FLIGHT', 256, 1, 10_000);
  const partitions = reader.integer('TRIAL_PARTITIONS', 4, 1, 64);
  const subscriptions = reader.integer('TRIAL_SUBSCRIPTIONS', 2_000, 100, 1_000_000);
  const clients = reader
    .string('TRIAL_CLIENTS', TRIAL_CLIENTS.join(','))
    .split(',')
    .map((c) => c.trim()) as TrialClientName[];
  const kinds = reader
    .string('TRIAL_FLOORS', 'echo,contract')
    .split(',')
    .map((k) => k.trim()) as WorkerKind[];
  const began = Date.now();
  const runDir = join(resolve(ROOT, reader.string('BENCH_OUT', '.bench')), `trial-${new Date(began).toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  const loadStart = loadAverage();
  progress(`Node ${process.version}; load average at start: ${loadStart}; logs in ${runDir}`);

  progress('building dist/ (npm run build, and the floor workers with the trial transports)');
  for (const [command, args] of [['npm', ['run', 'build']], ['npx', ['tsc', '-p', 'bench/tsconfig.build.json']]] as const) {
    const build = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${build.stdout}${build.stderr}`);
  }

  const stack = await provideStack();
  progress(stack.describe());
  const runId = randomUUID().slice(0, 6);
  const keyPrefix = `trial${runId}:`;
  const redis = new Redis(stack.redisUrl);
  const kafka = new Kafka({ clientId: 'trial-admin', brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const live: Scenario[] = [];
  const stopAll = async () => {
    await Promise.allSettled(live.map((s) => s.stop()));
    await stack.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().then(() => process.exit(130)));
  try {
    const auth = await benchAuth(runDir, BENCH_CUSTOMERS);
    const baseEnv = { KAFKA_BROKERS: stack.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl, REDIS_URL: stack.redisUrl, REDIS_KEY_PREFIX: keyPrefix, LOG_LEVEL: 'info', ...auth.env };
    const serviceConfig = loadConfig(baseEnv);
    const context: BenchContext = {
      runId,
      baseEnv,
      tokenProvider: auth.tokenProvider,
      admin,
      redis,
      redisUrl: stack.redisUrl,
      logDir: runDir,
      stackPids: {},
      timing: { warmupMs: Math.max(2, Math.round(phaseSeconds / 3)) * 1000, measureMs: phaseSeconds * 1000 },
      progress,
    };
    const seeder = new Seeder({ redisUrl: stack.redisUrl, keyPrefix, catalog: loadCatalog(serviceConfig.catalogFile), idempotencyTtlSeconds: serviceConfig.limits.idempotencyTtlSeconds });
    await seeder.fill(0, subscriptions, () => undefined);
    const target = await seeder.updateTarget();
    await seeder.close();
    const population = Array.from({ length: subscriptions }, (_, i) => benchSubscription(i));
    let seed = 0;
    const scenario = (name: string, kind: WorkerKind, client: TrialClientName) =>
      Scenario.start(context, { name, kind, partitions, workers: 1, workload: new MixedWorkload(population, target, ++seed), workerEnv: { FLOOR_CLIENT: client } });

    progress('warm-up: the echo floor on kafkajs at saturation, not reported (a fresh broker compiles its hot paths under the first load)');
    const warmUp = await scenario('trial-warmup', 'echo', 'kafkajs');
    await warmUp.saturation(inFlight).finally(() => warmUp.stop());

    const rows: TrialRow[] = [];
    for (let run = 1; run <= runs; run++) {
      for (const kind of kinds) {
        for (const client of clients) {
          const started = await scenario(`trial-${kind}-${client}-r${run}`, kind, client);
          live.push(started);
          try {
            const saturation = await started.saturation(inFlight);
            const atRate = await started.atRate(rate);
            const row: TrialRow = {
              client,
              kind,
              run,
              saturation: saturation.throughput,
              saturationCpuMs: cpuMsPerCommand(saturation, 'worker'),
              p50: atRate.latency.p50,
              p99: atRate.latency.p99,
              rateCpuMs: cpuMsPerCommand(atRate, 'worker'),
              outcomes: Object.fromEntries(Object.entries(saturation.outcomes).concat(Object.entries(atRate.outcomes).map(([k, v]) => [`${k}@rate`, v]))),
            };
            rows.push(row);
            progress(`run ${run} ${kind} ${client}: ${Math.round(row.saturation)}/s at saturation (${row.saturationCpuMs?.toFixed(3)} CPU ms/command); at ${rate}/s p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms; outcomes ${JSON.stringify(row.outcomes)}`);
          } finally {
            live.splice(live.indexOf(started), 1);
            await started.stop();
          }
          writeFileSync(join(runDir, 'rows.json'), JSON.stringify(rows, null, 2));
        }
      }
    }
    const report = [
      `## Kafka client trial (${new Date(began).toISOString().slice(0, 16)}Z, ${((Date.now() - began) / 60000).toFixed(1)} min)`,
      '',
      `Node ${process.version}; ${machineInfo().cores} × ${machineInfo().cpuModel}; load average ${loadStart} at start, ${loadAverage()} at end; ${stack.describe().replace(/; log [^;)]+/g, '')}.`,
      `${partitions} partitions, 1 worker, ${inFlight} calls in flight at saturation, ${rate}/s offered for latency; ${phaseSeconds} s measured per phase after ${Math.round(context.timing.warmupMs / 1000)} s of warm-up; clients alternated, ${runs} runs each.`,
      '',
      renderTables(rows, clients, rate),
    ].join('\n');
    writeFileSync(join(runDir, 'report.md'), report);
    process.stdout.write(`\n${report}\n`);
  } finally {
    await admin.disconnect().catch(() => undefined);
    redis.disconnect();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`trial failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
