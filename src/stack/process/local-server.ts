import { mkdtempSync } from 'node:fs';
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
  /** Stops the server and removes its folder (unless files are kept). */
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

/** A fresh temporary folder for one server, removed at exit unless kept. */
export function createServerFolder(name: string, options: ServerFolderOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `wholesale-stack-${name.replace(/[^A-Za-z0-9-]/g, '-')}-`));
  if (!options.keepFiles) removeFolderOnExit(dir);
  return dir;
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
    await this.process.stop();
    if (!this.parts.keepFiles && !this.failed) removeFolderNow(this.dir);
  }

  logTail(lines?: number): string {
    return this.process.logTail(lines);
  }
}
