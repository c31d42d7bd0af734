import { rmSync } from 'node:fs';

/**
 * Last-resort cleanup when the Node process ends without stopping its servers (a test run that threw, an
 * uncaught error, Ctrl-C): every live server process is killed and every temporary server folder not
 * marked as kept is removed. The orderly path is stop()/dispose() on each server.
 */
interface Killable {
  signal(signal: NodeJS.Signals): void;
}

const liveProcesses = new Set<Killable>();
const foldersToRemove = new Set<string>();
let installed = false;

export function trackProcess(process: Killable): void {
  liveProcesses.add(process);
}

export function untrackProcess(process: Killable): void {
  liveProcesses.delete(process);
}

export function removeFolderOnExit(folder: string): void {
  foldersToRemove.add(folder);
}

/** Keeps a folder after exit (a server that failed to start: its log is what the reader needs). */
export function keepFolderOnExit(folder: string): void {
  foldersToRemove.delete(folder);
}

export function removeFolderNow(folder: string): void {
  foldersToRemove.delete(folder);
  rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}

function killEverything(): void {
  // SIGKILL: the exit hook cannot wait for a graceful stop, and the data is temporary anyway.
  for (const process of liveProcesses) process.signal('SIGKILL');
  liveProcesses.clear();
  for (const folder of foldersToRemove) {
    try {
      rmSync(folder, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // best effort: a file still being written by a dying process
    }
  }
  foldersToRemove.clear();
}

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

function onSignal(signal: NodeJS.Signals): void {
  // When the application listens to this signal too, it owns the shutdown (and its process.exit runs the
  // exit hook). Alone, we restore the default behaviour: end the process, after killing our servers.
  if (process.listenerCount(signal) > 1) return;
  killEverything();
  process.exit(SIGNAL_EXIT_CODES[signal] ?? 1);
}

/** Installs the exit and signal hooks once per Node process. */
export function onProcessExit(): void {
  if (installed) return;
  installed = true;
  process.once('exit', killEverything);
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as NodeJS.Signals[]) process.on(signal, onSignal);
}
