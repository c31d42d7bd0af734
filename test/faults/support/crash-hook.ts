import { join } from 'node:path';
import type { WorkerProcess } from '../../support/worker-process';

/** The preload (node --require) that SIGKILLs a worker right before one Redis script: crash-before-script.cjs. */
export const CRASH_HOOK = join(__dirname, 'crash-before-script.cjs');

/**
 * Waits for a worker started with the crash hook to be killed by it; returns its exit code (null: killed).
 * The hook names its step; should it never fire (a renamed step, another call), this fails after `timeoutMs`,
 * not at the suite's timeout, and a worker that exited another way fails it too.
 */
export async function crashedByHook(worker: WorkerProcess, before: string, timeoutMs: number): Promise<number | null> {
  let noCrash: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    worker.exited,
    new Promise<never>((_, reject) => {
      noCrash = setTimeout(() => reject(new Error(`the crash hook did not fire before ${before} within ${timeoutMs} ms:\n${worker.tail(20)}`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(noCrash));
  if (!worker.output().includes('crash hook: SIGKILL')) throw new Error(`worker exited (${exit}) without the crash hook:\n${worker.tail(20)}`);
  return exit;
}
