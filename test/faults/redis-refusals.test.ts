import { Redis } from 'ioredis';
import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { groupProgress } from './support/topics';

jest.setTimeout(240_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14, item 4: Redis up but refusing writes, under load — full (maxmemory reached with noeviction:
 * every write answers OOM), then read-only (made a replica, as after a failover: READONLY). A refusal is
 * passing: the commands must be held and retried, not answered INTERNAL or dead-lettered, and applied once
 * each after Redis takes writes again. The rate limiter is off here: with it on, its own script is refused
 * first (and was always retried), which would hide the handlers' path that answered INTERNAL.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REFUSAL_MS = 5_000;
/** Batches whose Redis work was done before the refusal may still be answered just after it. */
const SETTLE_MS = 1_000;
// Enough for the load to outlast both refusals (60/s for 20 s): each phase must find commands waiting.
const COMMANDS = 1200;

describe('Redis refusing writes (full, then read-only) under load', () => {
  let redis: LocalRedis;
  let admin: Redis;
  let load: BalanceLoad | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    redis = await startLocalRedis({ appendOnly: false, extraArgs: ['--maxmemory-policy', 'noeviction'] });
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    await worker?.signal('SIGKILL');
    await load?.stop();
    admin?.disconnect();
    await redis?.dispose();
  });

  it('commands are held while Redis refuses, then each applied once; none answered INTERNAL or dead-lettered', async () => {
    const began = Date.now();
    const config = await faultConfig({ REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '0' });
    await createTopics(config);
    load = await BalanceLoad.prepare(config, { subscriptions: 20, commands: COMMANDS, producers: 2, ratePerSecond: 60 });
    await load.watchReplies();
    worker = await WorkerProcess.start(workerEnv(config));
    const sending = load.send();

    /** Refuses writes with `refuse` for REFUSAL_MS, then `restore`; what moved from SETTLE_MS in to the end. */
    const whileRefused = async (refuse: () => Promise<unknown>, restore: () => Promise<unknown>) => {
      await refuse();
      const refusedAt = Date.now();
      await sleep(SETTLE_MS);
      const settled = { replied: load!.replied, handled: worker!.handled.length };
      await sleep(REFUSAL_MS - (Date.now() - refusedAt));
      const before = { replied: load!.replied, handled: worker!.handled.length, progress: await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands) };
      await restore();
      const backAt = Date.now();
      // (answered while refused, nothing would be left to answer: the assertions below say so)
      if (before.replied < COMMANDS) await load!.repliedAtLeast(before.replied + 1, 60_000);
      return { settled, before, recoveryMs: Date.now() - backAt };
    };

    await load.repliedAtLeast(100, 90_000);
    // full: the limit just under what Redis uses now, so every write is refused
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    const full = await whileRefused(
      () => admin.config('SET', 'maxmemory', String(used - 64 * 1024)),
      () => admin.config('SET', 'maxmemory', '0'),
    );
    const repliedBeforeReadOnly = load.replied;
    await load.repliedAtLeast(Math.min(COMMANDS, repliedBeforeReadOnly + 50), 60_000);
    // read-only: made the replica of a primary that is not there (reads served, writes refused), then primary again
    const readOnly = await whileRefused(
      () => admin.replicaof('127.0.0.1', 1),
      () => admin.replicaof('NO', 'ONE'),
    );
    await sending;
    await worker.whileRunning(load.settled(120_000));
    const tally = await load.tally();
    const outcomes = worker.outcomes();
    const phase = (name: string, p: typeof full) =>
      `${name} ${REFUSAL_MS / 1000} s: from ${SETTLE_MS / 1000} s in to its end replies ${p.settled.replied} → ${p.before.replied}, handled ${p.settled.handled} → ${p.before.handled} ` +
      `(${p.before.progress.end - p.before.progress.committed} waiting); first reply ${(p.recoveryMs / 1000).toFixed(1)} s after writes were taken again`;
    report('Redis full, then read-only', tally, [
      phase('full (OOM)', full),
      phase('read-only (READONLY)', readOnly),
      `worker outcomes ${JSON.stringify(outcomes)}, same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    for (const p of [full, readOnly]) {
      // held, not answered: no reply and no handled record while Redis refused, though commands were waiting
      expect(p.before.replied).toBe(p.settled.replied);
      expect(p.before.handled).toBe(p.settled.handled);
      expect(p.before.progress.end).toBeGreaterThan(p.before.progress.committed);
    }
    expect({ INTERNAL: outcomes.INTERNAL ?? 0, DEAD_LETTER: outcomes.DEAD_LETTER ?? 0 }).toEqual({ INTERNAL: 0, DEAD_LETTER: 0 });
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, COMMANDS);
  });
});
