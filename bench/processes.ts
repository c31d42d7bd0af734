import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { WORKER_NODE_FLAGS } from './worker-flags';

/**
 * The worker under test runs as a process of its own, so its CPU time and peak memory are its own:
 * read from /proc/<pid>/stat (utime + stime, in clock ticks) and /proc/<pid>/status (VmHWM, VmRSS).
 */
const ROOT = join(__dirname, '..');
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export interface CpuSample {
  /** CPU seconds used so far (user + system). */
  cpuSeconds: number;
  at: number;
}

/** CPU seconds of a process so far, or undefined once it is gone. */
export function processCpu(pid: number): CpuSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND, at: performance.now() };
  } catch {
    return undefined;
  }
}

/** CPU use between two samples, in cores (1.0 = one core busy all along). */
export const cores = (from: CpuSample | undefined, to: CpuSample | undefined): number | undefined =>
  from && to && to.at > from.at ? (to.cpuSeconds - from.cpuSeconds) / ((to.at - from.at) / 1000) : undefined;

/** Peak and current resident memory (MiB) from /proc/<pid>/status. */
export function processMemory(pid: number): { peakMiB: number; rssMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** The process listening on a local TCP port (Kafka, Redis, the registry), when this user may see it. */
export function listenerPid(port: number): number | undefined {
  const out = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).stdout ?? '';
  const match = /pid=(\d+)/.exec(out);
  return match ? Number(match[1]) : undefined;
}

export interface WorkerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM (the worker finishes its batch, commits, exits 0), SIGKILL after a timeout. */
  stop(): Promise<number | null>;
}

export interface StartWorkerOptions {
  name: string;
  /** Compiled entry module, relative to the repository root. */
  entry: string;
  env: Record<string, string>;
  logDir: string;
  nodeOptions?: string[];
}

/** Starts a compiled worker entry point with node, as production does. */
export function startWorkerProcess(options: StartWorkerOptions): WorkerProcess {
  const logFile = join(options.logDir, `${options.name}.log`);
  const fd = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...(options.nodeOptions ?? []), options.entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('X_'))), ...options.env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stopping: Promise<number | null> | undefined;
  return {
    name: options.name,
    pid: child.pid!,
    logFile,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null) return child.exitCode;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      })()),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the group is Stable with `members` members that share every partition of `topics`. */
export async function waitForGroup(admin: Admin, groupId: string, members: number, topics: string[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const partitions = (await admin.fetchTopicMetadata({ topics })).topics.reduce((sum, t) => sum + t.partitions.length, 0);
  let last = '';
  while (Date.now() < deadline) {
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups[0];
    if (group && group.state === 'Stable' && group.members.length === members) {
      const { AssignerProtocol } = await import('kafkajs');
      const assigned = group.members.reduce((sum, m) => {
        const assignment = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
        return (
          sum +
          Object.entries(assignment?.assignment ?? {})
            .filter(([t]) => topics.includes(t))
            .reduce((s, [, p]) => s + p.length, 0)
        );
      }, 0);
      if (assigned === partitions) return;
      last = `${assigned}/${partitions} partitions assigned`;
    } else {
      last = `state ${group?.state}, ${group?.members.length ?? 0} members`;
    }
    await sleep(250);
  }
  throw new Error(`consumer group ${groupId} not ready after ${timeoutMs} ms (${last})`);
}
