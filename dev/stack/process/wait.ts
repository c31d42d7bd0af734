import { sleep } from '../../../src/shared/retry';
import type { SupervisedProcess } from './supervisor';

/** A server did not become ready: the message names it, says why, and carries the tail of its log. */
export class StackStartError extends Error {
  constructor(
    message: string,
    readonly logFile?: string,
    readonly logTail?: string,
  ) {
    super(logTail ? `${message}\n--- last lines of ${logFile} ---\n${logTail}\n---` : message);
    this.name = 'StackStartError';
  }
}

export function startError(process: SupervisedProcess, message: string): StackStartError {
  return new StackStartError(`${process.spec.name}: ${message}`, process.spec.logFile, process.logTail());
}

export interface WaitOptions {
  /** Human words for the condition, used in the error: e.g. `answering PING`. */
  readonly what: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** When given, waiting fails at once if this process exits, and errors carry its log tail. */
  readonly process?: SupervisedProcess;
}

/**
 * Polls `probe` until it returns a value other than undefined. A probe that throws counts as "not yet";
 * its last error is reported on timeout.
 */
export async function waitUntil<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const { what, timeoutMs, intervalMs = 250, process } = options;
  const deadline = Date.now() + timeoutMs;
  const exited = process?.exited();
  let exitInfo: string | undefined;
  void exited?.then((info) => (exitInfo = `exited (code ${info.code}, signal ${info.signal})`));
  let lastError: unknown;
  for (;;) {
    if (exitInfo !== undefined && process) throw startError(process, `${exitInfo} before ${what}`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const message = `not ${what} after ${Math.round(timeoutMs / 1000)} s${why}`;
      throw process ? startError(process, message) : new StackStartError(message);
    }
    await sleep(intervalMs);
  }
}
