import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepFolderOnExit, removeFolderNow, removeFolderOnExit } from './cleanup';
import { SupervisedProcess, type ProcessSpec } from './supervisor';

/** Control of one local server process, shared by Redis, Kafka brokers and the registry. */
export interface ServerControl {
  /** (Re)starts the server with the same ports and data folder and resolves when it is ready. */
  start(): Promise<void>;
  /** Graceful stop (SIGTERM, SIGKILL after a timeout). The data folder stays, for start() again. */
  stop(): Promise<void>;
  /** SIGKILL, as in a crash. The data folder stays. */
  kill(): Promise<void>;
  /** Ends the server at once (SIGKILL: its data is thrown away) and removes its folder (unless files are kept). */
  dispose(): Promise<void>;
  readonly running: boolean;
  /** The server's own temporary folder: data, configuration, log. */
  readonly dir: string;
  readonly logFile: string;
  /** The last lines of the log. */
  logTail(lines?: number): string;
}

export interface ServerFolderOptions {
  /** Keep the folder (data and log) after dispose and exit. */
  readonly keepFiles?: boolean;
}

const FOLDER_PREFIX = 'wholesale-stack-';
const KEEP_MARK = '.keep';
let swept = false;

/**
 * A fresh temporary folder for one server, named after this process (wholesale-stack-<pid>-<name>-XXXXXX),
 * removed at exit unless kept. The first call also removes folders of earlier runs whose process is gone
 * (killed by SIGKILL, so no exit hook ran), except folders marked as kept.
 */
export function createServerFolder(name: string, options: ServerFolderOptions = {}): string {
  if (!swept) {
    swept = true;
    sweepAbandonedFolders();
  }
  const dir = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-${name.replace(/[^A-Za-z0-9-]/g, '-')}-`));
  if (options.keepFiles) markKept(dir);
  else removeFolderOnExit(dir);
  return dir;
}

function markKept(dir: string): void {
  writeFileSync(join(dir, KEEP_MARK), 'kept for reading: remove by hand\n');
}

function sweepAbandonedFolders(): void {
  for (const entry of readdirSync(tmpdir())) {
    const owner = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(entry);
    if (!owner || isAlive(Number(owner[1])) || existsSync(join(tmpdir(), entry, KEEP_MARK))) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LocalServerParts {
  readonly spec: ProcessSpec;
  readonly dir: string;
  readonly keepFiles?: boolean;
  /** Runs before every start (e.g. formatting Kafka storage the first time). */
  readonly prepare?: () => Promise<void>;
  /** Resolves when the server serves; throws a StackStartError (with the log tail) otherwise. */
  readonly waitReady: (process: SupervisedProcess) => Promise<void>;
}

export class LocalServer implements ServerControl {
  private readonly process: SupervisedProcess;
  private failed = false;

  constructor(private readonly parts: LocalServerParts) {
    this.process = new SupervisedProcess(parts.spec);
  }

  get running(): boolean {
    return this.process.running;
  }

  get dir(): string {
    return this.parts.dir;
  }

  get logFile(): string {
    return this.parts.spec.logFile;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  async start(): Promise<void> {
    await this.parts.prepare?.();
    this.process.start();
    try {
      await this.parts.waitReady(this.process);
    } catch (error) {
      await this.process.kill();
      this.failed = true;
      keepFolderOnExit(this.dir); // its log explains the failure
      markKept(this.dir);
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }

  async kill(): Promise<void> {
    await this.process.kill();
  }

  async dispose(): Promise<void> {
    if (this.parts.keepFiles)
      await this.process.stop(5_000); // a graceful end, for whoever reads the log
    else await this.process.kill();
    if (!this.parts.keepFiles && !this.failed) removeFolderNow(this.dir);
  }

  logTail(lines?: number): string {
    return this.process.logTail(lines);
  }
}
