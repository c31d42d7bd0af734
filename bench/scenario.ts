import type { Admin } from 'kafkajs';
import type { Redis } from 'ioredis';
import { loadConfig, type ServiceConfig } from '../src/app/config';
import { TOPIC_VARIABLES } from '../src/config/kafka';
import { loadClientConfig } from '../src/client/config';
import pino from 'pino';
import { ensureTopicsExist } from '../src/adapters/kafka/admin-session';
import { kafkaConnection } from '../src/app/service';
import { WholesaleClient } from '../src/client';
import { COMMAND_TOPICS, type TopicRole } from '../src/contract/topics';
import { closedLoop, openLoop, type DriveResult, type PhaseTiming } from './drive';
import { CpuProbe } from './machine';
import { processMemory, startWorkerProcess, waitForGroup, type WorkerProcess } from './processes';
import { keptMemory, type KeptMemoryPerCommand } from './kept-memory';
import { commandStats, memorySnapshot, startMonitor, statsDelta, totalForks, type CommandStats, type MemorySnapshot, type MonitorSample } from './redis-probe';
import type { Workload } from './workload';
import { BENCH_PARTNER } from './auth';

/**
 * One scenario: fresh topics with `partitions` partitions, `workers` worker processes (the service or the
 * echo floor) in one consumer group, a client connected to them, then the phases asked for — saturation
 * (closed loop), latency at offered loads (open loop), a MONITOR sample of Redis round trips — each with
 * the CPU every process took during its measured window.
 */
export type WorkerKind = 'service' | 'echo' | 'contract';

/** The compiled entry points, as `npm start` and the container run them (run.ts builds them first). */
const ENTRIES: Record<WorkerKind, string> = { service: 'dist/src/entry/service.js', echo: 'dist/bench/echo-service.js', contract: 'dist/bench/contract-floor.js' };

export interface BenchContext {
  runId: string;
  /** Variables every worker gets: endpoints, Redis key prefix, log level, authentication. */
  baseEnv: Record<string, string>;
  /** Bearer tokens for the client (the service runs with AUTH_MODE=jwt). */
  tokenProvider: () => Promise<string>;
  admin: Admin;
  redis: Redis;
  redisUrl: string;
  logDir: string;
  /** Processes of the stack whose CPU is reported (when this user may see them). */
  stackPids: Record<string, number[]>;
  timing: PhaseTiming;
  cpuProfileDir?: string;
  progress: (line: string) => void;
}

export interface ScenarioOptions {
  name: string;
  kind: WorkerKind;
  partitions: number;
  workers: number;
  workload: Workload;
  inFlight?: number;
  rates?: number[];
  /** Open-loop rate of the Redis MONITOR sample (round trips per command); omitted: no sample. */
  monitorRate?: number;
  /** Settings of the workers beyond the scenario's own (e.g. OTEL_* to trace them). */
  workerEnv?: Record<string, string>;
}

export interface PhaseResult extends DriveResult {
  cpu: Record<string, number>;
  /** Redis commands run, Redis CPU, and memory kept (recorded outcomes, ledger) per command. */
  redis?: { callsPerCommand: number; usecPerCommand: number; bytesPerCommand: number; memory?: KeptMemoryPerCommand; calls: Record<string, number>; forks: number };
}

export interface ScenarioResult {
  name: string;
  kind: WorkerKind;
  partitions: number;
  workers: number;
  saturation?: PhaseResult;
  rates: Record<number, PhaseResult>;
  roundTrips?: { commands: number; sample: MonitorSample };
  /** Largest peak RSS (VmHWM) of the worker processes, MiB. */
  workerPeakRssMiB?: number;
  startSeconds: number;
}

function scenarioConfig(context: BenchContext, name: string, partitions: number): { env: Record<string, string>; config: ServiceConfig } {
  const defaults = loadConfig({ KAFKA_BROKERS: 'x:1', SCHEMA_REGISTRY_URL: 'http://x', REDIS_URL: 'redis://x', AUTH_MODE: 'none' });
  const suffix = `${context.runId}.${name}`;
  const topics = Object.fromEntries(Object.entries(TOPIC_VARIABLES).map(([role, variable]) => [variable, `bench.${defaults.topics[role as TopicRole]}.${suffix}`]));
  // The benchmark partner's reply topics are its own too (created by the workers at start).
  const env = { ...context.baseEnv, ...topics, PARTNER_TOPIC_PREFIX: `bench.${suffix}.partner.`, TOPIC_PARTITIONS: String(partitions), KAFKA_GROUP_ID: `bench-workers-${suffix}` };
  return { env, config: loadConfig(env) };
}

/** A running scenario: its workers, its client, and the phases that can be driven through it. */
export class Scenario {
  private constructor(
    private readonly context: BenchContext,
    readonly options: ScenarioOptions,
    readonly config: ServiceConfig,
    readonly env: Record<string, string>,
    readonly workers: WorkerProcess[],
    readonly client: WholesaleClient,
    readonly startSeconds: number,
  ) {}

  static async start(context: BenchContext, options: ScenarioOptions): Promise<Scenario> {
    const began = performance.now();
    const scenario = scenarioConfig(context, options.name, options.partitions);
    const { config } = scenario;
    const env = { ...scenario.env, ...options.workerEnv };
    await ensureTopicsExist(kafkaConnection(config, pino({ level: 'silent' })), Object.values(config.topics), options.partitions, 1);
    const workers = Array.from({ length: options.workers }, (_, i) =>
      startWorkerProcess({
        name: `${options.name}-${options.kind}-${i + 1}`,
        entry: ENTRIES[options.kind],
        env,
        logDir: context.logDir,
        nodeOptions: context.cpuProfileDir && options.kind !== 'echo' ? ['--cpu-prof', `--cpu-prof-dir=${context.cpuProfileDir}`] : [],
      }),
    );
    try {
      const commandTopics = Object.keys(COMMAND_TOPICS).map((role) => config.topics[role as TopicRole]);
      await waitForGroup(context.admin, config.groupId, options.workers, commandTopics);
      const client = await WholesaleClient.connect({
        // the shared command topics: the floors consume only those, so every kind of worker is measured alike
        config: loadClientConfig({ ...env, CLIENT_ID: `bench-client-${options.name}`, LOG_LEVEL: 'error', WHOLESALE_SHARED_COMMAND_TOPICS: 'true' }),
        tokenProvider: context.tokenProvider,
        partnerId: BENCH_PARTNER, // replies come on the benchmark partner's own reply topics
      });
      return new Scenario(context, options, config, env, workers, client, (performance.now() - began) / 1000);
    } catch (error) {
      await Promise.all(workers.map((w) => w.stop()));
      throw new Error(`${options.name}: workers did not start (logs: ${workers.map((w) => w.logFile).join(', ')}): ${(error as Error).message}`, { cause: error });
    }
  }

  private probe(): CpuProbe {
    return new CpuProbe({ ...this.context.stackPids, worker: this.workers.map((w) => w.pid), bench: [process.pid] });
  }

  /** Runs a driver with the CPU probe and Redis command counts taken over its measured window. */
  private async measured(drive: () => Promise<DriveResult>): Promise<PhaseResult> {
    const { timing, redis } = this.context;
    const probe = this.probe();
    const stats: {
      before?: Promise<CommandStats>;
      after?: Promise<CommandStats>;
      memoryBefore?: Promise<MemorySnapshot>;
      memoryAfter?: Promise<MemorySnapshot>;
      forksBefore?: Promise<number>;
      forksAfter?: Promise<number>;
    } = {};
    const startTimer = setTimeout(() => {
      probe.start();
      stats.before = commandStats(redis);
      stats.forksBefore = totalForks(redis);
      stats.memoryBefore = memorySnapshot(redis);
    }, timing.warmupMs);
    const stopTimer = setTimeout(() => {
      probe.stop();
      stats.after = commandStats(redis);
      stats.forksAfter = totalForks(redis);
      stats.memoryAfter = memorySnapshot(redis);
    }, timing.warmupMs + timing.measureMs);
    const result = await drive();
    clearTimeout(startTimer);
    clearTimeout(stopTimer);
    const cpu = probe.used ?? probe.stop();
    const phase: PhaseResult = { ...result, cpu };
    if (stats.before && stats.after) {
      const delta = statsDelta(await stats.before, await stats.after);
      const commands = result.throughput * (timing.measureMs / 1000);
      const memory = keptMemory(await stats.memoryBefore!, await stats.memoryAfter!);
      if (commands > 0) {
        const forks = (await stats.forksAfter!) - (await stats.forksBefore!);
        const perCommand = (bytes: number) => bytes / commands;
        phase.redis = {
          callsPerCommand: delta.totalCalls / commands,
          usecPerCommand: delta.usec / commands,
          bytesPerCommand: perCommand(memory.kept),
          memory: {
            usedGrowth: perCommand(memory.usedGrowth),
            transient: perCommand(memory.transient),
            hashTableGrowth: perCommand(memory.hashTableGrowth),
            hashTableShare: perCommand(memory.hashTableShare),
            keysAdded: perCommand(memory.keysAdded),
          },
          calls: delta.calls,
          forks,
        };
      }
    }
    return phase;
  }

  saturation(inFlight: number): Promise<PhaseResult> {
    return this.measured(() => closedLoop(this.client, this.options.workload, inFlight, this.context.timing));
  }

  atRate(rate: number, workload = this.options.workload): Promise<PhaseResult> {
    return this.measured(() => openLoop(this.client, workload, rate, this.context.timing));
  }

  /** Every command Redis runs during a short open-loop run, split into client round trips and script commands. */
  async roundTrips(rate: number): Promise<{ commands: number; sample: MonitorSample }> {
    const monitor = await startMonitor(this.context.redisUrl);
    const result = await openLoop(this.client, this.options.workload, rate, { warmupMs: 0, measureMs: 2000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { commands: result.latency.count, sample: await monitor.stop() };
  }

  peakRssMiB(): number | undefined {
    const peaks = this.workers.map((w) => processMemory(w.pid)?.peakMiB).filter((v): v is number => v !== undefined);
    return peaks.length ? Math.max(...peaks) : undefined;
  }

  async stop(): Promise<void> {
    await this.client.close();
    await Promise.all(this.workers.map((w) => w.stop()));
  }

  /** Every phase the options ask for, in order: saturation, the offered loads, the MONITOR sample. */
  async runAll(): Promise<ScenarioResult> {
    const { options, context } = this;
    const result: ScenarioResult = { name: options.name, kind: options.kind, partitions: options.partitions, workers: options.workers, rates: {}, startSeconds: this.startSeconds };
    if (options.inFlight) {
      result.saturation = await this.saturation(options.inFlight);
      context.progress(`${options.name}: saturation ${Math.round(result.saturation.throughput)} commands/s (${options.inFlight} in flight)`);
    }
    for (const rate of options.rates ?? []) {
      result.rates[rate] = await this.atRate(rate);
      const { latency } = result.rates[rate];
      context.progress(`${options.name}: ${rate}/s → p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms`);
    }
    if (options.monitorRate) result.roundTrips = await this.roundTrips(options.monitorRate);
    result.workerPeakRssMiB = this.peakRssMiB();
    return result;
  }
}

/** Starts a scenario, runs its phases, stops it (also when a phase fails). */
export async function runScenario(context: BenchContext, options: ScenarioOptions): Promise<ScenarioResult> {
  context.progress(`${options.name}: starting ${options.workers} ${options.kind} worker(s) on ${options.partitions} partition(s)`);
  const scenario = await Scenario.start(context, options);
  try {
    return await scenario.runAll();
  } finally {
    await scenario.stop();
  }
}
