import { spawnSync } from 'node:child_process';
import { startKafkaCluster, type KafkaCluster } from '../../dev/stack';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { createTopicsOnCluster, leaderOfPartitionZero } from './support/topics';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/**
 * A broker that hangs instead of dying (SIGSTOP: its connections stay open, nothing answers) for 40 s on a
 * three-broker cluster, then resumes. Requests to it wait for kafkajs's request timeout (30 s) before
 * anything is tried elsewhere, so handling stalls for most of the freeze (longest pause 30.0 s in a run
 * before the sender's spanning calls, 40.1 and 30.1 s with them); what must hold is that nothing is lost or
 * applied twice, and that the worker, never restarted, serves on once the broker answers.
 */
const FREEZE_MS = 40_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The longest gap between two handled records inside [from, to) (ms since the epoch), from `from` on. */
const longestPauseWithin = (worker: WorkerProcess, from: number, to: number): number => {
  let previous = from;
  let longest = 0;
  for (const line of worker.handled) {
    if (line.at < from || line.at >= to) continue;
    longest = Math.max(longest, line.at - previous);
    previous = line.at;
  }
  return Math.max(longest, to - previous);
};
const pidListeningOn = (port: string): number => Number(/pid=(\d+)/.exec(spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).stdout)?.[1]);

describe('three-broker cluster (RF 3, min.insync.replicas 2): one broker frozen 40 s under load, then resumed', () => {
  let cluster: KafkaCluster;
  let load: BalanceLoad | undefined;
  let worker: WorkerProcess | undefined;
  let frozenPid = 0;

  beforeAll(async () => {
    cluster = await startKafkaCluster({ brokers: 3 });
  });

  afterAll(async () => {
    if (frozenPid) process.kill(frozenPid, 'SIGCONT');
    await worker?.signal('SIGKILL');
    await load?.stop();
    await cluster?.stop();
  });

  it('every Add applied once and answered; the same worker serves on', async () => {
    const began = Date.now();
    const commands = 3000;
    const config = await faultConfig({ KAFKA_BROKERS: cluster.brokers.join(','), TOPIC_REPLICATION_FACTOR: '3' });
    await createTopicsOnCluster(config);
    load = await BalanceLoad.prepare(config, { subscriptions: 50, commands, producers: 4, ratePerSecond: 50 });
    await load.watchReplies();
    worker = await WorkerProcess.start(workerEnv(config));
    const sending = load.send();
    await load.repliedAtLeast(500, 90_000);

    const victim = await leaderOfPartitionZero(cluster.brokers, config.topics.balanceCommands);
    frozenPid = pidListeningOn(cluster.node(victim).brokers[0]!.split(':').at(-1)!);
    expect(frozenPid).toBeGreaterThan(0);
    process.kill(frozenPid, 'SIGSTOP');
    const frozenAt = Date.now();
    const handledAtFreeze = worker.handled.length;
    await sleep(FREEZE_MS);
    const handledWhileFrozen = worker.handled.length - handledAtFreeze;
    const thawedAt = Date.now();
    process.kill(frozenPid, 'SIGCONT');
    frozenPid = 0;
    await sending;
    const settleMs = await worker.whileRunning(load.settled(120_000));
    const tally = await load.tally();
    // the freeze's effect, measured: handling stalled during it as it never did in as long a time before it
    // (the load is steady, 50/s, from before the freeze to after it)
    const pauseBefore = longestPauseWithin(worker, frozenAt - FREEZE_MS / 2, frozenAt);
    const pauseDuring = longestPauseWithin(worker, frozenAt, thawedAt);
    const handledBefore = worker.handled.filter((h) => h.at >= frozenAt - FREEZE_MS / 2 && h.at < frozenAt).length;
    report('Kafka cluster, one of 3 brokers frozen 40 s', tally, [
      `broker ${victim} (leader of commands partition 0) SIGSTOPped at ${handledAtFreeze} handled, ${handledWhileFrozen} handled while frozen (${handledBefore} in the ${FREEZE_MS / 2000} s before); longest pause in handling ${(pauseBefore / 1000).toFixed(1)} s in the ${FREEZE_MS / 2000} s before the freeze, ${(pauseDuring / 1000).toFixed(1)} s during it`,
      `longest pause in handling from the freeze ${(worker.longestPause(frozenAt) / 1000).toFixed(1)} s; all committed ${(settleMs / 1000).toFixed(1)} s after the last send`,
      `worker handled ${worker.handled.length} (${worker.outcomes().REPLAYED ?? 0} replayed), same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, commands);
    // the freeze had an effect: handling stalled far longer than anything before it (the frozen broker led
    // partitions whose requests waited for the request timeout)
    expect(handledBefore).toBeGreaterThan(0);
    // (30 s of request timeout; a loaded machine pauses up to ≈ 6 s without a freeze)
    expect(pauseDuring).toBeGreaterThan(Math.max(15_000, 2 * pauseBefore));
  });
});
