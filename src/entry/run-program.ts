import type { Logger } from 'pino';
import { ConfigError } from '../config/env';

/** A started long-lived program: its logger, how it stops, and what it logs when a signal stops it. */
export interface StartedProgram {
  log: Logger;
  stop(): Promise<void>;
  stoppingMessage: string;
}

/**
 * Runs a long-lived program (the worker, the gateway, the webhook dispatcher) the one way: settings from the
 * environment (a ConfigError exits 2 with its message), then `start`; SIGTERM or SIGINT stops it gracefully
 * (exit 0, or 1 when stopping failed); a failed start exits 1. `start` is handed `fail`, to stop the program
 * with exit 1 when it can no longer work (the orchestrator then starts a fresh one).
 */
export function runProgram<Settings>(name: string, load: () => Settings, start: (settings: Settings, fail: (reason: string) => void) => Promise<StartedProgram>): void {
  let started: StartedProgram | undefined;
  let stopping = false;
  const stop = (reason: string, exitCode: number): void => {
    if (stopping) return;
    stopping = true;
    started?.log.info({ signal: reason }, started.stoppingMessage);
    (started?.stop() ?? Promise.resolve()).then(
      () => process.exit(exitCode),
      (error: unknown) => {
        started?.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const main = async (): Promise<void> => {
    let settings: Settings;
    try {
      settings = load();
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`configuration error: ${error.message}\n`);
        process.exit(2);
      }
      throw error;
    }
    started = await start(settings, (reason) => stop(reason, 1));
    process.once('SIGTERM', () => stop('SIGTERM', 0));
    process.once('SIGINT', () => stop('SIGINT', 0));
  };
  main().catch((error: Error) => {
    process.stderr.write(`${name} failed to start: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
