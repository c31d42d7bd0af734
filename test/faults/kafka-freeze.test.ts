import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startKafkaCluster, type KafkaCluster } from '../../dev/stack';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { createTopicsOnCluster, leaderOfPartitionZero } from './support/topics';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/**
 * A broker that hangs instead of dying (SIGSTOP: its connections stay open, nothing answers) for 40 s on a
 * three-broker cluster, then resumes. The controller fences it after the stack's broker session timeout (4 s)
 * and moves its partitions' leadership; the worker's requests already sent to it wait for the client's request
 * timeout. What must hold is that nothing is lost or applied twice, and that the worker, never restarted,
 * serves on once the broker answers.
 */
const FREEZE_MS = 40_000;
/** The stack's broker.session.timeout.ms: no partition of the frozen broker gets a new leader sooner. */
const BROKER_SESSION_MS = 4_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The longest gap between two handled records of commands partition 0 inside [from, to), counted from the
 * first such record at or after `from` (so the worker's start is not taken for a pause), or from `from` itself
 * when `fromStart` is set (the freeze's start: the gap from it to the first record is the freeze's doing).
 */
const longestPartitionZeroPause = (worker: WorkerProcess, from: number, to: number, fromStart: boolean): number => {
  const times = worker.handled.filter((h) => h.partition === 0 && h.at >= from && h.at < to).map((h) => h.at);
  let previous = fromStart ? from : (times[0] ?? to);
  let longest = 0;
  for (const at of times) {
    longest = Math.max(longest, at - previous);
    previous = at;
  }
  return Math.max(longest, to - previous);
};
/** The process's state letter from /proc (T: stopped by a signal). */
const processState = (pid: number): string => /\) (\w) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '?';
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
    frozenPid = pidListeningOn(cluster.node(victim).brokers[0].split(':').at(-1)!);
    expect(frozenPid).toBeGreaterThan(0);
    process.kill(frozenPid, 'SIGSTOP');
    const frozenAt = Date.now();
    const handledAtFreeze = worker.handled.length;
    await sleep(FREEZE_MS - 2_000);
    // the fault, checked where it happens: the broker's process is stopped, and the cluster has moved
    // partition 0's leadership away from it (asked of the two brokers that answer)
    const stateWhileFrozen = processState(frozenPid);
    const others = [1, 2, 3].filter((nodeId) => nodeId !== victim).flatMap((nodeId) => cluster.node(nodeId).brokers);
    const leaderWhileFrozen = await leaderOfPartitionZero(others, config.topics.balanceCommands);
    await sleep(Math.max(0, frozenAt + FREEZE_MS - Date.now()));
    const handledWhileFrozen = worker.handled.length - handledAtFreeze;
    const thawedAt = Date.now();
    process.kill(frozenPid, 'SIGCONT');
    frozenPid = 0;
    await sending;
    const settleMs = await worker.whileRunning(load.settled(120_000));
    const tally = await load.tally();
    // the freeze's effect on the records the frozen broker led (the load is steady, 50/s, from before the
    // freeze to after it): partition 0's longest pause during the freeze, against its longest in the 20 s
    // before (from its first record there: the worker's start is not a pause)
    const pauseBefore = longestPartitionZeroPause(worker, frozenAt - FREEZE_MS / 2, frozenAt, false);
    const pauseDuring = longestPartitionZeroPause(worker, frozenAt, thawedAt, true);
    const handledBefore = worker.handled.filter((h) => h.partition === 0 && h.at >= frozenAt - FREEZE_MS / 2 && h.at < frozenAt).length;
    report('Kafka cluster, one of 3 brokers frozen 40 s', tally, [
      `broker ${victim} (leader of commands partition 0) SIGSTOPped at ${handledAtFreeze} handled (process state ${stateWhileFrozen}, partition 0 led by broker ${leaderWhileFrozen} 38 s in), ${handledWhileFrozen} handled while frozen`,
      `partition 0: ${handledBefore} handled in the ${FREEZE_MS / 2000} s before the freeze, longest pause ${(pauseBefore / 1000).toFixed(1)} s there and ${(pauseDuring / 1000).toFixed(1)} s during the freeze`,
      `longest pause in handling any partition from the freeze ${(worker.longestPause(frozenAt) / 1000).toFixed(1)} s; all committed ${(settleMs / 1000).toFixed(1)} s after the last send`,
      `worker handled ${worker.handled.length} (${worker.outcomes().REPLAYED ?? 0} replayed), same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, commands);
    // the fault was real: the broker was stopped and the cluster saw it gone
    expect(stateWhileFrozen).toBe('T');
    expect(leaderWhileFrozen).not.toBe(victim);
    // and the worker met it: partition 0 was handled steadily before, and stalled during the freeze for at
    // least the broker session timeout (no new leader sooner) and longer than any pause before it
    expect(handledBefore).toBeGreaterThan(0);
    expect(pauseDuring).toBeGreaterThan(Math.max(BROKER_SESSION_MS, pauseBefore));
  });
});
