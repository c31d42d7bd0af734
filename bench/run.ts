import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/app/config';
import { loadBenchConfig, type BenchConfig } from './config';
import { loadStackConfig } from '../dev/stack/config';
import { loadCatalog } from '../src/app/service';
import { APICURIO_VERSION, provideStack, type Stack } from '../dev/stack';
import { loadAverage, machineInfo } from './machine';
import { listenerPid } from './processes';
import { compactAppendOnlyFile, redisBenchmark, sampledKeyBytes, usedMemory } from './redis-probe';
import { renderReport, targetsOf, type BenchResults } from './report';
import { runScenario, Scenario, type BenchContext } from './scenario';
import { benchAuth } from './auth';
import { BENCH_CUSTOMERS, benchSubscription, Seeder } from './seed';
import { stateFloor } from './state-floor';
import { measureForgedFlood } from './forged-flood';
import { measureTracingCost } from './tracing-cost';
import { measureDeliveryCost } from './delivery-cost';
import { measureChargingCost } from './charging-cost';

/** Valid commands per second beside the forged-token flood. */
const FORGED_VALID_RATE = 500;
import { MIX, MixedWorkload, type UpdateTarget } from './workload';

/**
 * `npm run bench`: the service against its own floor on the real stack (docs/benchmarks.md).
 * 1. a stack from the provider (given endpoints, or local Kafka, Apicurio and Redis started for the run);
 * 2. active subscriptions seeded through the service's own subscription store;
 * 3. the service worker as a separate process, driven through the client library: saturation, latency at
 *    fixed offered loads, Redis commands and round trips per command, CPU and peak memory;
 * 4. the floors: an echo worker on the same path without Redis or handlers, the contract floor (the same
 *    path with the replies, events and state read the contract needs, nothing the service decides), and
 *    the state alone;
 * 5. scaling with partitions, worker processes and the number of subscriptions;
 * then the tables, printed and written to BENCH_OUT (default .bench/).
 */
const progress = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const portOf = (endpoint: string): number | undefined => {
  const match = /:(\d+)(?:\/|$)/.exec(endpoint.replace(/^[a-z]+:\/\//, ''));
  return match ? Number(match[1]) : undefined;
};

function stackPids(stack: Stack): Record<string, number[]> {
  const pids: Record<string, number[]> = {};
  const add = (name: string, endpoint: string | undefined) => {
    const port = endpoint ? portOf(endpoint) : undefined;
    const pid = port ? listenerPid(port) : undefined;
    if (pid) pids[name] = [pid];
  };
  add('kafka', stack.kafkaBrokers[0]);
  add('redis', stack.redisUrl);
  add('registry', stack.schemaRegistryUrl);
  return pids;
}

async function serverVersions(redis: Redis, stack: Stack): Promise<Record<string, string>> {
  const redisVersion = /^redis_version:(.+)$/m.exec(await redis.info('server'))?.[1]?.trim() ?? '?';
  const given = stack.kind === 'env' ? ' (given endpoint; version as provided)' : '';
  return { Kafka: `${loadStackConfig().kafkaVersion}${given}`, 'Apicurio Registry': `${APICURIO_VERSION}${given}`, Redis: redisVersion };
}

const timingOf = (settings: BenchConfig) => ({
  warmupMs: Math.max(2, Math.round(settings.phaseSeconds / 3)) * 1000,
  measureMs: settings.phaseSeconds * 1000,
});

async function main(): Promise<void> {
  const settings = loadBenchConfig();
  const began = Date.now();
  const loadStart = loadAverage();
  const outDir = resolve(settings.outDir);
  const runDir = join(outDir, `run-${new Date(began).toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  progress(`load average at start: ${loadStart}; logs in ${runDir}`);

  // The workers run compiled, as `npm start` and the container run them.
  // The echo floor is a benchmark tool, not part of the product build: compiled beside it (bench/tsconfig.build.json).
  progress('building dist/ (npm run build, and the floor workers)');
  for (const [command, args] of [
    ['npm', ['run', 'build']],
    ['npx', ['tsc', '-p', 'bench/tsconfig.build.json']],
  ] as const) {
    const build = spawnSync(command, args, { cwd: join(__dirname, '..'), encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${build.stdout}${build.stderr}`);
  }

  const stack = await provideStack();
  progress(stack.describe());
  const runId = randomUUID().slice(0, 6);
  const keyPrefix = `bench${runId}:`;
  const redis = new Redis(stack.redisUrl);
  const kafka = new Kafka({ clientId: 'bench-admin', brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const scenarios: Scenario[] = [];
  const stopAll = async () => {
    await Promise.allSettled(scenarios.map((s) => s.stop()));
    await admin.disconnect().catch(() => undefined);
    redis.disconnect();
    await stack.stop();
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));

  try {
    const auth = await benchAuth(runDir, BENCH_CUSTOMERS);
    const baseEnv = {
      KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: keyPrefix,
      LOG_LEVEL: 'info',
      ...auth.env,
    };
    const serviceConfig = loadConfig(baseEnv);
    const catalog = loadCatalog(serviceConfig.catalogFile);
    const context: BenchContext = {
      runId,
      baseEnv,
      tokenProvider: auth.tokenProvider,
      admin,
      redis,
      redisUrl: stack.redisUrl,
      logDir: runDir,
      stackPids: stackPids(stack),
      timing: timingOf(settings),
      cpuProfileDir: settings.cpuProfileDir ? resolve(settings.cpuProfileDir) : undefined,
      progress,
    };

    // Subscriptions, and the memory each takes.
    const seeder = new Seeder({ redisUrl: stack.redisUrl, keyPrefix, catalog, idempotencyTtlSeconds: serviceConfig.limits.idempotencyTtlSeconds });
    const seeding: BenchResults['seeding'] = [];
    const seed = async (from: number, to: number) => {
      const before = await usedMemory(redis);
      const ms = await seeder.fill(from, to, (done) => progress(`seeded ${done.toLocaleString('en-US')}`));
      const withRecords = ((await usedMemory(redis)) - before) / (to - from);
      await seeder.forgetCommandRecords(from, to);
      const bytes = ((await usedMemory(redis)) - before) / (to - from);
      if (await compactAppendOnlyFile(redis)) progress('rewrote the append-only file after seeding');
      progress(
        `seeded subscriptions ${from}..${to - 1} in ${(ms / 1000).toFixed(1)} s: ${Math.round(bytes)} bytes each (${Math.round(withRecords)} while the seeding commands' records are kept)`,
      );
      return { subscriptions: to, seconds: ms / 1000, bytesPerSubscription: bytes, bytesWithCommandRecords: withRecords };
    };
    seeding.push(await seed(0, settings.subscriptions));
    const target: UpdateTarget = await seeder.updateTarget();
    const population = Array.from({ length: settings.subscriptions }, (_, i) => benchSubscription(i));
    const workload = (seedValue: number, subscriptions = population) => new MixedWorkload(subscriptions, target, seedValue);

    const common = { partitions: settings.partitions, workers: 1, inFlight: settings.inFlight, rates: settings.rates };
    // A fresh stack's JVMs compile their hot paths under the first load: measured, Kafka took 0.5 cores in
    // the first scenario and 0.1 in the same one minutes later. Unmeasured saturation first: the echo
    // floor, which moves the most messages through Kafka, then the service.
    for (const kind of ['echo', 'service'] as const) {
      progress(`warm-up: ${kind} at saturation, not reported`);
      const warmUp = await Scenario.start(context, { ...common, name: `warmup-${kind}`, kind, workload: workload(0) });
      await warmUp.saturation(settings.inFlight).finally(() => warmUp.stop());
    }
    const service = await runScenario(context, { ...common, name: 'service', kind: 'service', workload: workload(1), monitorRate: 500 });
    const sampled = await sampledKeyBytes(redis, `${serviceConfig.redis.keyPrefix}*:done:*`);
    const changesPerCommand = (MIX.update + MIX.bucket) / Object.values(MIX).reduce((a, b) => a + b, 0);
    const outcomeRecords = sampled && { sampled: sampled.keys, meanBytes: sampled.meanBytes, changesPerCommand };
    const echo = settings.skip.includes('echo') ? undefined : await runScenario(context, { ...common, name: 'echo', kind: 'echo', workload: workload(2) });
    const contract = settings.skip.includes('contract') ? undefined : await runScenario(context, { ...common, name: 'contract', kind: 'contract', workload: workload(6) });
    const forged = settings.skip.includes('forged') ? undefined : await measureForgedFlood(context, { ...common, workload: workload(4) }, FORGED_VALID_RATE, settings.forgedRate);
    const tracing = settings.skip.includes('tracing') ? undefined : await measureTracingCost(context, { ...common, workload: workload(5) });
    const delivery = settings.skip.includes('delivery') ? undefined : await measureDeliveryCost(context, { ...common, workload: workload(7) }, settings.commitIntervals);
    const charging = settings.skip.includes('charging') ? undefined : await measureChargingCost(context, common, population, target);

    let floor: BenchResults['stateFloor'];
    let benchmark: BenchResults['redisBenchmark'];
    if (!settings.skip.includes('redis')) {
      floor = await stateFloor(serviceConfig, workload(3), serviceConfig.limits.handlerConcurrency, settings.phaseSeconds);
      progress(`state floor: ${Math.round(floor.throughput)} commands/s`);
      const url = new URL(stack.redisUrl);
      benchmark = redisBenchmark(url.hostname, Number(url.port || 6379), { requests: settings.quick ? 50_000 : 200_000, clients: 50, pipeline: 1, tests: 'get,set' });
    }

    const scaling: BenchResults['scaling'] = [];
    if (!settings.skip.includes('scaling')) {
      const shapes = settings.quick
        ? [
            { partitions: 1, workers: 1 },
            { partitions: 4, workers: 2 },
          ]
        : [1, 2, 4].map((partitions) => ({ partitions, workers: 1 })).concat([{ partitions: 4, workers: 2 }]);
      for (const [i, shape] of shapes.entries()) {
        scaling.push(await runScenario(context, { ...shape, name: `scale-p${shape.partitions}-w${shape.workers}`, kind: 'service', workload: workload(10 + i), inFlight: settings.inFlight }));
      }
    }

    const growth: BenchResults['growth'] = [];
    if (!settings.skip.includes('growth') && settings.growthSteps.length > 0) {
      let size = settings.subscriptions;
      const scenario = await Scenario.start(context, { name: 'growth', kind: 'service', partitions: settings.partitions, workers: 1, workload: workload(20) });
      scenarios.push(scenario);
      for (const step of settings.growthSteps.filter((s) => s > settings.subscriptions)) {
        const seeded = await seed(size, step);
        seeding.push(seeded);
        size = step;
        const everyone = Array.from({ length: size }, (_, i) => benchSubscription(i));
        const phase = await scenario.atRate(1000, new MixedWorkload(everyone, target, 30 + growth.length));
        growth.push({
          subscriptions: size,
          bytesPerSubscription: seeded.bytesPerSubscription,
          usedMemoryMiB: (await usedMemory(redis)) / 2 ** 20,
          latency: phase.latency,
          workerPeakRssMiB: scenario.peakRssMiB(),
          redisCpu: phase.cpu.redis,
          redisForks: phase.redis?.forks,
        });
        progress(`growth: ${size.toLocaleString('en-US')} subscriptions → p99 ${phase.latency.p99.toFixed(1)} ms at 1,000/s`);
      }
      await scenario.stop();
    }
    await seeder.close();

    const partial: Omit<BenchResults, 'targets'> = {
      command: `${settings.quick ? 'BENCH_QUICK=1 ' : ''}npm run bench`,
      quick: settings.quick,
      machine: machineInfo(),
      versions: await serverVersions(redis, stack),
      stack: stack
        .describe()
        .replace(/; log [^;)]+/g, '')
        .replace(/ \(ready in [^)]*\)/g, ''),
      load: { start: loadStart, end: loadAverage() },
      startedAt: new Date(began).toISOString(),
      durationSeconds: (Date.now() - began) / 1000,
      subscriptions: settings.subscriptions,
      partitions: settings.partitions,
      inFlight: settings.inFlight,
      phase: { warmupSeconds: context.timing.warmupMs / 1000, measureSeconds: context.timing.measureMs / 1000 },
      seeding,
      outcomeRecords,
      service,
      echo,
      contract,
      forged,
      tracing,
      delivery,
      charging,
      stateFloor: floor,
      redisBenchmark: benchmark,
      scaling,
      growth,
    };
    const results: BenchResults = { ...partial, targets: targetsOf(partial) };
    const report = renderReport(results);
    writeFileSync(join(runDir, 'results.json'), JSON.stringify(results, null, 2));
    writeFileSync(join(runDir, 'report.md'), report);
    writeFileSync(join(outDir, 'latest.md'), report);
    process.stdout.write(`\n${report}\n`);
    progress(`load average at end: ${results.load.end}; report in ${join(runDir, 'report.md')}`);
  } finally {
    await stopAll();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
