import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { redisCommand } from '../../dev/stack/redis/local-redis';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, SESSION_TIMEOUT_MS, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { groupProgress, kafkaClient } from './support/topics';

jest.setTimeout(240_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14, defect 4: a Redis that stops answering while its connection stays open (SIGSTOP of the
 * redis-server this test started; the same as a black-holed network) used to hang the batch on a command
 * without a timeout: the worker stopped heartbeating, was expelled from its group after the session
 * timeout, and once Redis answered again sent the outputs of partitions it no longer owned. Every Redis
 * command is now bounded (REDIS_COMMAND_TIMEOUT_MS), a timeout is retriable, and the batch heartbeats while
 * it waits: the worker stays in its group, answers and commits nothing while Redis is frozen, and applies
 * every command exactly once after SIGCONT.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const COMMAND_TIMEOUT_MS = 1000;
/** Longer than the session: a worker that stopped heartbeating would be out of the group by then. */
const FREEZE_MS = SESSION_TIMEOUT_MS + 4000;
/** Batches whose Redis work was done before the freeze may still be answered and committed just after it. */
const SETTLE_MS = 2_000;

async function redisPid(redis: LocalRedis): Promise<number> {
  const info = await redisCommand(redis.port, 'info', 'server');
  return Number(/process_id:(\d+)/.exec(info)![1]);
}

async function groupMembers(brokers: string[], groupId: string): Promise<{ state: string; members: number }> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return { state: groups[0].state, members: groups[0].members.length };
  } finally {
    await admin.disconnect();
  }
}

describe('Redis frozen (SIGSTOP) under load, then resumed', () => {
  let redis: LocalRedis;
  let pid: number | undefined;
  let load: BalanceLoad | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    redis = await startLocalRedis({ appendOnly: true, appendFsync: 'everysec' });
  });

  afterAll(async () => {
    if (pid !== undefined) process.kill(pid, 'SIGCONT');
    await worker?.signal('SIGKILL');
    await load?.stop();
    await redis?.dispose();
  });

  it('the worker stays in its group, answers and commits nothing while frozen, and applies every Add exactly once after', async () => {
    const began = Date.now();
    const commands = 2000;
    const config = await faultConfig({ REDIS_URL: redis.url });
    await createTopics(config);
    load = await BalanceLoad.prepare(config, { subscriptions: 50, commands, producers: 4, ratePerSecond: 200 });
    await load.watchReplies();
    worker = await WorkerProcess.start({ ...workerEnv(config), REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) });
    const sending = load.send();
    await load.repliedAtLeast(400, 90_000);

    pid = await redisPid(redis);
    process.kill(pid, 'SIGSTOP');
    const frozenAt = Date.now();
    // the bound: a command to the frozen Redis fails (retriably) instead of waiting for ever
    await worker.waitFor((line) => line.includes('"retriable failure"') && line.includes('Command timed out'), SESSION_TIMEOUT_MS, 'a Redis command timed out');
    const firstTimeoutMs = Date.now() - frozenAt;
    await sleep(Math.max(0, SETTLE_MS - (Date.now() - frozenAt)));
    const settled = { replied: load.replied, handled: worker.handled.length, progress: await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands) };
    await sleep(FREEZE_MS - (Date.now() - frozenAt));
    const beforeResume = { replied: load.replied, handled: worker.handled.length, progress: await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands) };
    const group = await groupMembers(config.kafka.brokers, config.groupId);
    process.kill(pid, 'SIGCONT');
    pid = undefined;
    const resumedAt = Date.now();
    await load.repliedAtLeast(beforeResume.replied + 1, 60_000);
    const recoveryMs = Date.now() - resumedAt;
    await sending;
    await worker.whileRunning(load.settled(120_000));
    const tally = await load.tally();
    report('Redis frozen 14 s', tally, [
      `Redis SIGSTOPped ${((resumedAt - frozenAt) / 1000).toFixed(1)} s (session ${SESSION_TIMEOUT_MS / 1000} s, REDIS_COMMAND_TIMEOUT_MS ${COMMAND_TIMEOUT_MS}); first command timed out ${(firstTimeoutMs / 1000).toFixed(1)} s after the freeze`,
      `from ${SETTLE_MS / 1000} s into the freeze to its end: replies ${settled.replied} → ${beforeResume.replied}, handled ${settled.handled} → ${beforeResume.handled}, committed ${settled.progress.committed} → ${beforeResume.progress.committed} of ${beforeResume.progress.end} sent`,
      `group at the end of the freeze: ${group.state}, ${group.members} member(s)`,
      `first reply ${(recoveryMs / 1000).toFixed(1)} s after SIGCONT`,
      `worker handled ${worker.handled.length} (${worker.outcomes().REPLAYED ?? 0} replayed), same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    // still a member after longer than the session: it heartbeated while its batches waited on Redis
    expect(group).toEqual({ state: 'Stable', members: 1 });
    // not acknowledged while Redis is frozen: no reply, no handled record, no committed offset
    expect(beforeResume.replied).toBe(settled.replied);
    expect(beforeResume.handled).toBe(settled.handled);
    expect(beforeResume.progress.committed).toBe(settled.progress.committed);
    expect(beforeResume.progress.end).toBeGreaterThan(beforeResume.progress.committed); // there was work waiting
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, commands);
  });
});
