// The one way the project waits and retries: `sleep`, and exponential backoff, by default with "equal
// jitter" (half the delay fixed, half random). After an outage every worker (and every partition of one
// worker) retries at once; spreading the retries keeps them from hitting Redis or the broker in step.

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Half of `ms` fixed, the other half random. */
export const withJitter = (ms: number, random: () => number = Math.random): number => Math.round(ms / 2 + random() * (ms / 2));

/** How a delay is spread: "equal" keeps half and draws half, "full" draws it all, "none" waits it exactly. */
export type Jitter = 'equal' | 'full' | 'none';

export interface BackoffSettings {
  /** The first delay (before jitter). */
  initialMs: number;
  /** Delays double up to this (before jitter). */
  maxMs: number;
  jitter?: Jitter;
}

/** The delay before try number `attempt` + 1 (0 for the first retry): initialMs doubled `attempt` times, at most maxMs, jittered. */
export function backoffDelayMs(settings: BackoffSettings, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxMs, settings.initialMs * 2 ** Math.min(attempt, 52));
  const jitter = settings.jitter ?? 'equal';
  if (jitter === 'none') return ceiling;
  return jitter === 'full' ? Math.floor(random() * ceiling) : withJitter(ceiling, random);
}

/** Successive delays: initialMs, doubling up to maxMs, each jittered; `reset` starts again from initialMs. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly settings: BackoffSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** The next delay to wait. */
  next(): number {
    return backoffDelayMs(this.settings, this.attempt++, this.random);
  }

  reset(): void {
    this.attempt = 0;
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
