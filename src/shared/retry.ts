// The one way the project waits and retries: `sleep`, and exponential backoff with "equal jitter" (half
// the delay fixed, half random). After an outage every worker (and every partition of one worker) retries
// at once; spreading the retries keeps them from hitting Redis or the broker in step.

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Half of `ms` fixed, the other half random. */
export const withJitter = (ms: number, random: () => number = Math.random): number => Math.round(ms / 2 + random() * (ms / 2));

export interface BackoffSettings {
  /** The first delay (before jitter). */
  initialMs: number;
  /** Delays double up to this (before jitter). */
  maxMs: number;
}

/** Successive delays: initialMs, doubling up to maxMs, each jittered. */
export class Backoff {
  private current: number;

  constructor(
    private readonly settings: BackoffSettings,
    private readonly random: () => number = Math.random,
  ) {
    this.current = settings.initialMs;
  }

  /** The next delay to wait. */
  next(): number {
    const delay = withJitter(this.current, this.random);
    this.current = Math.min(this.current * 2, this.settings.maxMs);
    return delay;
  }
}

export interface RetryOptions {
  backoff: BackoffSettings;
  /** Tries in all; default: no limit (then set `timeoutMs`). */
  attempts?: number;
  /** No new try starts once this long has passed since the first. */
  timeoutMs?: number;
  /** Whether a failure is worth another try; default every failure. */
  retriable?: (error: unknown) => boolean;
}

/** Calls `attempt` until it succeeds; the last failure is thrown once a limit is reached or it is not retriable. */
export async function retry<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const backoff = new Backoff(options.backoff);
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const exhausted = tries >= (options.attempts ?? Infinity) || Date.now() >= deadline;
      if (exhausted || !(options.retriable?.(error) ?? true)) throw error;
    }
    await sleep(Math.max(0, Math.min(backoff.next(), deadline - Date.now())));
  }
}
