import type { Logger } from 'pino';

export interface PollLoop {
  start(): void;
  /** Stops polling and waits for the tick in flight. */
  stop(): Promise<void>;
}

/** Runs `tick` every `intervalMs` after the one before ends, never two at once; a failed tick is logged and the next runs. */
export function pollLoop(tick: () => Promise<unknown>, intervalMs: number, log: Logger, failure: string): PollLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  function loop(): void {
    if (stopped) return;
    running = tick()
      .catch((error: unknown) => log.error({ err: error }, failure))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
