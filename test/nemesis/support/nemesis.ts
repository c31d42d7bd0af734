// The nemesis: plays a schedule (schedule.ts) on the run's processes — its workers, the brokers of a
// three-broker cluster, Redis, the network between the workers and Redis or each broker, and the partner's
// webhook endpoint — one fault at a time, recording when each began and ended, and heals all.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { KafkaCluster } from '../../../dev/stack';
import type { TcpProxy } from '../../support/tcp-proxy';
import type { WebhookReceiver } from '../../support/webhook-receiver';
import { WorkerProcess } from '../../support/worker-process';
import type { History } from './history';
import { redisPid, type RedisShape } from './redis-shapes';
import { skewSeconds, type FaultKind, type ScheduledFault } from './schedule';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a worker told to stop (SIGTERM) has before it is killed, as Kubernetes's default termination grace. */
const STOP_GRACE_MS = 30_000;

/** The process listening on a loopback port (a broker's PLAINTEXT port): its pid, for SIGSTOP. */
const pidListeningOn = (port: string): number => Number(/pid=(\d+)/.exec(spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).stdout)?.[1]);

/** Debian's libfaketime (package faketime): a process's wall clock moved, its monotonic clock (timers) left alone. */
const FAKETIME_LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** Throws unless libfaketime is installed: the clock-skew fault needs it. */
export function assertFaketime(): void {
  if (!existsSync(FAKETIME_LIBRARY)) throw new Error(`clock-skew needs libfaketime at ${FAKETIME_LIBRARY} (apt-get install faketime), or NEMESIS_LEAVE_OUT=clock-skew`);
}

/** The environment that starts a worker with its wall clock `seconds` off (ahead when positive). */
export const skewedClock = (seconds: number): Record<string, string> => ({
  LD_PRELOAD: FAKETIME_LIBRARY,
  FAKETIME: `${seconds >= 0 ? '+' : ''}${seconds}s`,
  FAKETIME_DONT_FAKE_MONOTONIC: '1',
});

/** A worker that exits before it has started is started again this much later, as an orchestrator would, for at most START_ATTEMPTS starts. */
const RESTART_BACKOFF_MS = 2_000;
const START_ATTEMPTS = 5;
/** How long the heal waits for the faults still recovering (a worker's restart with its retries, a replica's sync: about a minute at most). */
const HEAL_WAIT_MS = 120_000;

/** The run's workers, each slot restarted with the same environment. */
export class WorkerPool {
  readonly slots: WorkerProcess[] = [];
  /** Every worker process the run started (for their handled counts). */
  readonly all: WorkerProcess[] = [];

  constructor(
    private readonly env: Record<string, string>,
    private readonly history: History,
  ) {}

  async start(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, (_, slot) => this.restart(slot)));
  }

  /**
   * Starts the slot's worker (with `extraEnv` over the run's: a skewed clock); one that fails to start is
   * recorded (an anomaly: start-failed) and started again.
   */
  async restart(slot: number, extraEnv: Record<string, string> = {}): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const at = Date.now();
      try {
        const worker = await WorkerProcess.start({ ...this.env, ...extraEnv }, `nemesis-worker-${slot}`);
        this.slots[slot] = worker;
        this.all.push(worker);
        return;
      } catch (error) {
        const lines = String((error as Error).message).split('\n');
        const reason = lines.find((line) => line.includes('failed to start')) ?? lines[0];
        this.history.push({ kind: 'start-failed', at, worker: `slot ${slot}, attempt ${attempt}`, reason: reason.slice(0, 300) });
        if (attempt >= START_ATTEMPTS) throw error;
        await sleep(RESTART_BACKOFF_MS * attempt);
      }
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((w) => (w.child.kill('SIGCONT'), w.signal('SIGKILL'))));
  }
}

export class Nemesis {
  /** Faults played, by kind. */
  readonly played: Partial<Record<FaultKind, number>> = {};
  private frozen: number[] = [];
  /**
   * A process coming back (a broker's or a worker's start takes seconds, tens on a loaded machine) is waited
   * for in the background: the next fault of another class strikes meanwhile. Each recovery under way, by
   * the fault's name.
   */
  private readonly recovering = new Map<Promise<void>, string>();
  private readonly pending = new Set<string>();
  /** Faults left out because a process of their class was still coming back, by kind. */
  readonly skipped: Partial<Record<FaultKind, number>> = {};

  constructor(
    private readonly cluster: KafkaCluster,
    /** Redis in the run's shape: a primary and its replica behind a proxy, or a Redis Cluster with replicas. */
    private readonly redis: RedisShape,
    /** Between the workers and each broker (its relayed listener), by broker index. */
    private readonly kafkaProxies: TcpProxy[],
    /** The partner's webhook endpoint. */
    private readonly webhooks: WebhookReceiver,
    private readonly workers: WorkerPool,
    private readonly history: History,
  ) {}

  /**
   * Plays the schedule from now and returns `totalMs` later (the workload runs to the end); a fault that would
   * begin after `totalMs` (the ones before ran late) is left out.
   */
  async play(schedule: ScheduledFault[], totalMs: number): Promise<void> {
    const began = Date.now();
    await this.strikeAll(schedule, totalMs, began);
    const left = began + totalMs - Date.now();
    if (left > 0) await sleep(left);
  }

  private async strikeAll(schedule: ScheduledFault[], totalMs: number, began: number): Promise<void> {
    for (const fault of schedule) {
      const wait = began + fault.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      if (Date.now() - began > totalMs) break;
      const name = `${fault.kind} #${fault.target}`;
      const kindOf = fault.kind === 'rolling-restart' || fault.kind === 'clock-skew' ? 'worker' : fault.kind.split('-')[0];
      // a process of its class still coming back (a broker's start takes tens of seconds on a loaded machine):
      // this fault is left out rather than the schedule's time shifted
      if (this.pending.has(kindOf)) {
        this.skipped[fault.kind] = (this.skipped[fault.kind] ?? 0) + 1;
        continue;
      }
      this.history.push({ kind: 'fault', at: Date.now(), fault: name, phase: 'begin' });
      this.pending.add(kindOf);
      const recovered = this.strike(fault).then(
        () => {
          this.history.push({ kind: 'fault', at: Date.now(), fault: name, phase: 'end' });
          this.pending.delete(kindOf);
        },
        // a fault the nemesis could not undo (a worker it could not start again): the run is not what it says
        (error: unknown) => void this.history.push({ kind: 'fault', at: Date.now(), fault: name, phase: 'failed', error: String((error as Error)?.message ?? error).slice(0, 300) }),
      );
      this.recovering.set(recovered, name);
      void recovered.then(() => this.recovering.delete(recovered));
      this.played[fault.kind] = (this.played[fault.kind] ?? 0) + 1;
      await Promise.race([recovered, sleep(fault.durationMs)]);
    }
  }

  private async strike({ kind, durationMs, target }: ScheduledFault): Promise<void> {
    const broker = this.cluster.nodes[target];
    switch (kind) {
      case 'worker-kill':
        await this.workers.slots[target].signal('SIGKILL');
        await sleep(durationMs);
        return this.workers.restart(target);
      case 'worker-pause':
        return this.frozenFor(this.workers.slots[target].pid, durationMs);
      case 'rolling-restart':
        for (let slot = 0; slot < this.workers.slots.length; slot++) {
          await this.stopGracefully(slot);
          await this.workers.restart(slot);
          await sleep(durationMs);
        }
        return;
      case 'broker-kill':
        await broker.kill();
        await sleep(durationMs);
        return broker.start();
      case 'broker-freeze':
        return this.frozenFor(pidListeningOn(String(broker.port)), durationMs);
      case 'broker-restart':
        await broker.stop();
        return broker.start();
      case 'redis-stop': {
        const primary = await this.redis.primary(target);
        await primary.stop();
        await sleep(durationMs);
        return this.redis.startAgain(primary);
      }
      case 'redis-freeze':
        return this.frozenFor(await redisPid(await this.redis.primary(target)), durationMs);
      case 'redis-failover':
        return this.redis.failover(target);
      case 'redis-delay': {
        const proxy = await this.redis.proxyOf(target);
        proxy.delayMs = 100 + (durationMs % 401);
        await sleep(durationMs);
        proxy.delayMs = 0;
        return;
      }
      case 'redis-partition': {
        const proxy = await this.redis.proxyOf(target);
        proxy.blackhole = true;
        await sleep(durationMs);
        proxy.blackhole = false;
        return proxy.cut();
      }
      case 'redis-drop':
        return (await this.redis.proxyOf(target)).cut();
      case 'kafka-delay':
        this.kafkaProxies[target].delayMs = 50 + (durationMs % 251);
        await sleep(durationMs);
        this.kafkaProxies[target].delayMs = 0;
        return;
      case 'kafka-partition':
        this.kafkaProxies[target].blackhole = true;
        await sleep(durationMs);
        this.kafkaProxies[target].blackhole = false;
        return this.kafkaProxies[target].cut();
      case 'kafka-drop':
        for (const proxy of this.kafkaProxies) proxy.cut();
        return;
      case 'clock-skew': {
        await this.stopGracefully(target);
        await this.workers.restart(target, skewedClock(skewSeconds(durationMs)));
        await sleep(durationMs);
        await this.stopGracefully(target);
        return this.workers.restart(target);
      }
      case 'webhook-down':
        await this.webhooks.stop();
        await sleep(durationMs);
        return this.webhooks.start();
      case 'webhook-slow': {
        const lateMs = 300 + (durationMs % 1201);
        this.webhooks.answer = async () => (await sleep(lateMs), 204);
        await sleep(durationMs);
        this.webhooks.answer = () => 204;
        return;
      }
    }
  }

  /**
   * SIGTERM, and SIGKILL if the worker has not exited within the grace an orchestrator gives (Kubernetes: 30 s),
   * recorded: a shutdown that hangs is an anomaly of its own.
   */
  private async stopGracefully(slot: number): Promise<void> {
    const worker = this.workers.slots[slot];
    const began = Date.now();
    const exited = await Promise.race([worker.signal('SIGTERM').then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
    if (exited) return;
    this.history.push({ kind: 'stop-overdue', at: began, worker: `${slot} (pid ${worker.pid})`, graceMs: STOP_GRACE_MS });
    await worker.signal('SIGKILL');
  }

  private async frozenFor(pid: number, durationMs: number): Promise<void> {
    if (!(pid > 0)) throw new Error('no process to freeze');
    process.kill(pid, 'SIGSTOP');
    this.frozen.push(pid);
    await sleep(durationMs);
    process.kill(pid, 'SIGCONT');
    this.frozen = this.frozen.filter((p) => p !== pid);
  }

  /** Everything running again (after a failed test too): frozen processes resumed, dead brokers and Redis started. */
  async heal(): Promise<void> {
    // a fault that does not recover must not hang the run: it is recorded as failed (fault-failed) and the rest healed
    await Promise.race([Promise.allSettled(this.recovering.keys()), sleep(HEAL_WAIT_MS)]);
    for (const name of this.recovering.values())
      this.history.push({ kind: 'fault', at: Date.now(), fault: name, phase: 'failed', error: `not recovered ${HEAL_WAIT_MS / 1000} s after the schedule` });
    this.recovering.clear();
    for (const pid of this.frozen) process.kill(pid, 'SIGCONT');
    this.frozen = [];
    for (const node of this.cluster.nodes) if (!node.running) await node.start();
    await this.redis.heal();
    this.webhooks.answer = () => 204;
    if (!this.webhooks.listening) await this.webhooks.start();
    for (const proxy of [...this.redis.proxies, ...this.kafkaProxies]) {
      proxy.delayMs = 0;
      proxy.blackhole = false;
    }
  }
}
