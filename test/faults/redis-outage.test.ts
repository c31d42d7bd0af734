import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { groupProgress } from './support/topics';

jest.setTimeout(240_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 7, item 4: Redis stopped for 10 s under load and started again (AOF on, appendfsync everysec, as
 * docs/reliability.md asks of production). While it is away the worker must not answer or commit anything
 * (a command is acknowledged only once its effect is in Redis); once it is back, everything is applied
 * exactly once, by the same worker process.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OUTAGE_MS = 10_000;
/** Batches whose Redis work was done before the stop may still be answered and committed just after it. */
const SETTLE_MS = 2_000;

describe('Redis stopped for 10 s under load, then started again', () => {
  let redis: LocalRedis;
  let load: BalanceLoad | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    redis = await startLocalRedis({ appendOnly: true, appendFsync: 'everysec' });
  });

  afterAll(async () => {
    await worker?.signal('SIGKILL');
    await load?.stop();
    await redis?.dispose();
  });

  it('nothing is answered or committed while it is away; afterwards every Add is applied exactly once', async () => {
    const began = Date.now();
    const commands = 3000;
    const config = await faultConfig({ REDIS_URL: redis.url });
    await createTopics(config);
    load = await BalanceLoad.prepare(config, { subscriptions: 50, commands, producers: 4, ratePerSecond: 200 });
    await load.watchReplies();
    worker = await WorkerProcess.start(workerEnv(config));
    const sending = load.send();
    await load.repliedAtLeast(600, 90_000);

    await redis.stop();
    const stoppedAt = Date.now();
    const repliedAtStop = load.replied;
    await sleep(SETTLE_MS);
    const settled = { replied: load.replied, handled: worker.handled.length, progress: await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands) };
    await sleep(OUTAGE_MS - (Date.now() - stoppedAt));
    const beforeReturn = { replied: load.replied, handled: worker.handled.length, progress: await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands) };
    await redis.start();
    const downMs = Date.now() - stoppedAt;
    const backAt = Date.now();
    await load.repliedAtLeast(beforeReturn.replied + 1, 60_000);
    const recoveryMs = Date.now() - backAt;
    await sending;
    await worker.whileRunning(load.settled(120_000));
    const tally = await load.tally();
    report('Redis stopped 10 s', tally, [
      `Redis down ${(downMs / 1000).toFixed(1)} s from ${repliedAtStop} replies`,
      `from ${SETTLE_MS / 1000} s into the outage to its end: replies ${settled.replied} → ${beforeReturn.replied}, handled ${settled.handled} → ${beforeReturn.handled}, committed ${settled.progress.committed} → ${beforeReturn.progress.committed} of ${beforeReturn.progress.end} sent`,
      `first reply ${(recoveryMs / 1000).toFixed(1)} s after Redis was back`,
      `worker handled ${worker.handled.length} (${worker.outcomes().REPLAYED ?? 0} replayed), same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    // not acknowledged while Redis is away: no reply, no handled record, no committed offset
    expect(beforeReturn.replied).toBe(settled.replied);
    expect(beforeReturn.handled).toBe(settled.handled);
    expect(beforeReturn.progress.committed).toBe(settled.progress.committed);
    expect(beforeReturn.progress.end).toBeGreaterThan(beforeReturn.progress.committed); // there was work waiting
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, commands);
  });
});
