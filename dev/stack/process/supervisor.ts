import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync } from 'node:fs';
import { readLogTail } from './log-tail';
import { onProcessExit, untrackProcess, trackProcess } from './cleanup';

/** One server process: what to run, where, and where its output goes. */
export interface ProcessSpec {
  /** Short name used in errors and logs, e.g. `kafka-1`, `redis 21345`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** stdout and stderr are appended here, across restarts. */
  readonly logFile: string;
  /** How long stop() waits after SIGTERM before SIGKILL. */
  readonly stopTimeoutMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// setpriv (util-linux) makes the kernel SIGKILL the server when this Node process dies in any way, so a
// crashed or killed test run leaves no orphans. SIGKILL, not SIGTERM: a Kafka node whose quorum peers are
// gone can hang for minutes in a graceful shutdown. It also covers jest test files, whose sandboxed
// `process` object never emits 'exit' to our hook. Without setpriv (not Linux) the exit hook covers
// ordinary exits of ordinary Node processes.
const SETPRIV = '/usr/bin/setpriv';
const hasSetpriv = existsSync(SETPRIV);

/**
 * A child process that can be started, stopped gracefully, killed and started again with the same
 * command line (same ports, same data folder). Its output goes straight to a log file (no pipes through
 * Node), and it is unref'd: the Node process may exit while it runs, and then the exit hook kills it.
 */
export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private exit: Promise<ExitInfo> | undefined;

  constructor(readonly spec: ProcessSpec) {
    onProcessExit(); // installs the exit and signal hooks once
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.child) throw new Error(`${this.spec.name} is already running (pid ${this.child.pid})`);
    const { command, args, cwd, logFile, name } = this.spec;
    appendFileSync(logFile, `\n=== ${new Date().toISOString()} starting ${name}: ${command} ${args.join(' ')}\n`);
    const fd = openSync(logFile, 'a');
    const [file, argv] = hasSetpriv ? [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, [...args]];
    let child: ChildProcess;
    try {
      child = spawn(file, argv, { cwd, stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
    child.unref();
    this.child = child;
    trackProcess(this);
    this.exit = new Promise<ExitInfo>((resolve) => {
      const done = (info: ExitInfo): void => {
        if (this.child === child) this.child = undefined;
        untrackProcess(this);
        resolve(info);
      };
      child.once('error', (error) => {
        appendFileSync(logFile, `\n=== could not start ${name}: ${error.message}\n`);
        done({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => done({ code, signal }));
    });
  }

  /** Resolves when the current run ends; undefined when it never started. */
  exited(): Promise<ExitInfo> | undefined {
    return this.exit;
  }

  /** SIGTERM, then SIGKILL when it has not exited after the stop timeout. */
  async stop(timeoutMs = this.spec.stopTimeoutMs ?? 15_000): Promise<ExitInfo | undefined> {
    const exit = this.exit;
    if (!this.child || !exit) return undefined;
    this.holdUntilExit();
    this.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const first = await Promise.race([exit, timedOut]);
    clearTimeout(timer);
    if (first !== 'timeout') return first;
    appendFileSync(this.spec.logFile, `\n=== ${this.spec.name} did not stop within ${timeoutMs} ms: SIGKILL\n`);
    return this.kill();
  }

  /** SIGKILL: the process dies at once, as in a crash. */
  async kill(): Promise<ExitInfo | undefined> {
    const exit = this.exit;
    if (!this.child || !exit) return undefined;
    this.holdUntilExit();
    this.signal('SIGKILL');
    return exit;
  }

  /**
   * The child is unref'd so it never keeps Node alive by itself; but whoever awaits its exit must be kept
   * alive until then. Without this, a jest globalTeardown awaiting a stop had nothing holding the event loop:
   * Node exited with code 0 in the middle of it, before jest set its exit code — a failed test run ended 0.
   */
  private holdUntilExit(): void {
    this.child?.ref();
  }

  /** Sends a signal without waiting (used by the exit hook, which cannot wait). */
  signal(signal: NodeJS.Signals): void {
    try {
      this.child?.kill(signal);
    } catch {
      // already gone
    }
  }

  logTail(lines = 40): string {
    return readLogTail(this.spec.logFile, lines);
  }
}
