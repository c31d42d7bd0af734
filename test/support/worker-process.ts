import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The worker as it runs in production: src/entry/service.ts in a child process of its own, configured by
 * environment only, stopped by a signal. Its pino lines are parsed as they come: every "command handled"
 * line is counted by outcome (Success, an error code, DEAD_LETTER, REPLAYED), so a test can measure
 * handled against replayed records.
 */
const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist');
/** Lines a `countLines` tally keeps, for explaining a count in a failure. */
const KEPT_TALLIED_LINES = 5;
const KEPT_LINES = 400;

export interface HandledLine {
  correlationId?: string;
  operation?: string;
  outcome: string;
  topic: string;
  partition: number;
  offset: string;
  /** When the test process read the line (ms since the epoch). */
  at: number;
}

export class WorkerProcess {
  readonly exited: Promise<number | null>;
  /** Every "command handled" line, in order. */
  readonly handled: HandledLine[] = [];
  private readonly lines: string[] = [];
  private partial = '';
  private exitCode: number | null | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    const take = (chunk: Buffer) => this.take(chunk.toString('utf8'));
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    this.exited = new Promise((resolve) =>
      child.on('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
  }

  /**
   * Spawns a worker with these variables over the test process's environment; `preload`: test hooks (node
   * --require); `entry`: another program of src/entry/ run the same way (the gateway).
   */
  static spawn(env: Record<string, string>, name = 'worker', preload: string[] = [], entry = 'service.ts'): WorkerProcess {
    // tsx's loader inside one Node process (not its launcher, which runs a second one): signals and RSS are
    // the worker's own, and setpriv's parent-death signal ends it if the test process dies.
    const node = [process.execPath, '--require', join(TSX, 'preflight.cjs'), ...preload.flatMap((file) => ['--require', file]), '--import', pathToFileURL(join(TSX, 'loader.mjs')).href];
    const child = spawn('setpriv', ['--pdeathsig', 'KILL', ...node, join(ROOT, 'src', 'entry', entry)], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new WorkerProcess(child, name);
  }

  /** Spawns a worker and waits for its "worker started" line. */
  static async start(env: Record<string, string>, name = 'worker', timeoutMs = 90_000, preload: string[] = []): Promise<WorkerProcess> {
    const worker = WorkerProcess.spawn(env, name, preload);
    try {
      await worker.waitFor((line) => line.includes('"worker started"'), timeoutMs, 'worker started');
    } catch (error) {
      // one that did not say it started in time is no worker of the test's, but would still join its group
      await worker.signal('SIGKILL');
      throw error;
    }
    return worker;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  private take(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop()!;
    // WORKER_LOG_DIR: every line of every worker also goes to <dir>/<name>-<pid>.log (for reading a failure)
    if (process.env.WORKER_LOG_DIR && parts.length > 0) {
      mkdirSync(process.env.WORKER_LOG_DIR, { recursive: true });
      appendFileSync(join(process.env.WORKER_LOG_DIR, `${this.name}-${this.pid}.log`), parts.map((l) => `${l}\n`).join(''));
    }
    for (const line of parts) {
      this.lines.push(line);
      if (this.lines.length > KEPT_LINES) this.lines.shift();
      if (line.includes('"command handled"')) {
        try {
          const parsed = JSON.parse(line) as HandledLine;
          this.handled.push({
            correlationId: parsed.correlationId,
            operation: parsed.operation,
            outcome: parsed.outcome,
            topic: parsed.topic,
            partition: parsed.partition,
            offset: parsed.offset,
            at: Date.now(),
          });
        } catch {
          // a line cut by a kill: not a handled record
        }
      }
      for (const waiter of [...this.waiters]) if (waiter.test(line)) waiter.resolve();
      for (const tally of this.tallies) {
        if (!tally.test(line)) continue;
        if (tally.count++ < KEPT_TALLIED_LINES) tally.lines.push(line);
      }
    }
  }

  private readonly tallies = new Set<{ test: (line: string) => boolean; count: number; lines: string[] }>();

  /** Counts the output lines that pass the test from now on, keeping the first few (read when wanted). */
  countLines(test: (line: string) => boolean): { readonly count: number; readonly lines: readonly string[] } {
    const tally = { test, count: 0, lines: [] as string[] };
    this.tallies.add(tally);
    return tally;
  }

  private readonly waiters = new Set<{ test: (line: string) => boolean; resolve: () => void }>();

  /** Resolves at the first output line (from now or already kept) that passes the test. */
  waitFor(test: (line: string) => boolean, timeoutMs: number, what: string): Promise<void> {
    if (this.lines.some(test)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`${this.name}: no "${what}" within ${timeoutMs} ms; last output:\n${this.tail(40)}`));
      }, timeoutMs);
      this.waiters.add(waiter);
      void this.exited.then(() => {
        if (!this.waiters.has(waiter)) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        reject(new Error(`${this.name} exited (${this.exitCode}) before "${what}"; last output:\n${this.tail(40)}`));
      });
    });
  }

  /** The last output lines, for failure messages. */
  tail(count = 40): string {
    return this.lines.slice(-count).join('\n');
  }

  output(): string {
    return this.lines.join('\n');
  }

  /** Waits for `work`, failing at once (with the worker's last output) if the worker exits first. */
  whileRunning<T>(work: Promise<T>): Promise<T> {
    const died = this.exited.then((code) => {
      throw new Error(`${this.name} exited (${code}) while it should have been working; last output:\n${this.tail(30)}`);
    });
    return Promise.race([work, died]);
  }

  /** Resolves once more than `count` records were handled; returns how long that took. */
  async handledMoreThan(count: number, timeoutMs: number): Promise<number> {
    const began = Date.now();
    while (this.handled.length <= count) {
      if (Date.now() - began > timeoutMs) throw new Error(`${this.name}: still ${this.handled.length} handled after ${timeoutMs} ms; last output:\n${this.tail(20)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return Date.now() - began;
  }

  /** The longest time between two handled records from `since` (ms since the epoch) on, in ms. */
  longestPause(since: number): number {
    let previous = since;
    let longest = 0;
    for (const line of this.handled) {
      if (line.at < since) continue;
      longest = Math.max(longest, line.at - previous);
      previous = line.at;
    }
    return longest;
  }

  /** Counts of "command handled" lines by outcome. */
  outcomes(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const line of this.handled) counts[line.outcome] = (counts[line.outcome] ?? 0) + 1;
    return counts;
  }

  /** Resident set size of the worker process, in bytes; throws when it cannot be read (the process gone). */
  rssBytes(): number {
    return this.statusBytes('VmRSS');
  }

  /** The highest resident set size the worker process ever had (the kernel's high-water mark), in bytes. */
  peakRssBytes(): number {
    return this.statusBytes('VmHWM');
  }

  /** A memory figure of /proc/<pid>/status in bytes: a reading, never a default (a limit checked on 0 would pass). */
  private statusBytes(field: string): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kB = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
    if (kB === undefined || Number(kB) <= 0) throw new Error(`${this.name} (pid ${this.pid}): no ${field} in /proc/${this.pid}/status`);
    return Number(kB) * 1024;
  }

  /** Sends a signal and waits for the exit. */
  async signal(signal: NodeJS.Signals): Promise<number | null> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}
