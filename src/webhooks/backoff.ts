// When to try a failed delivery again: exponential backoff with full jitter (a random delay between 0 and
// min(maxDelay, initial × 2^attempt)), so receivers coming back are not hit by every sender at once; and
// when to give up: once the next try would fall past `maxRetryMs` after the first.

export interface RetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** How long after the first attempt an event is given up (a day by default). */
  maxRetryMs: number;
}

/** The delay before retry number `attempt` (0 for the first retry); `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt, 52));
  return Math.floor(random * ceiling);
}

/** The next attempt's time, or undefined when the event is to be given up. */
export function nextAttemptAt(policy: RetryPolicy, firstAttemptAt: number, now: number, attempt: number, random: number): number | undefined {
  const at = now + retryDelayMs(policy, attempt, random);
  return at - firstAttemptAt > policy.maxRetryMs ? undefined : at;
}
