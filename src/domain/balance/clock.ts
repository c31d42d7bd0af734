/**
 * The clock of bill cycles. In production it is the wall clock (scale 1). Tests and demos speed it up:
 * with scale S, one real millisecond after `origin` is S milliseconds of billing time, so a month passes in
 * seconds (S = 864000 makes a day last 0.1 s). Every instance sharing one Redis must use the same origin
 * and scale. Handlers keep real time for their own timestamps; only cycle arithmetic uses this clock.
 */
export interface BillingClock {
  /** Billing time now. */
  now(): Date;
  /** Billing time of a real instant. */
  toBilling(real: Date): Date;
  /** Real instant (epoch ms) at which a billing time is reached. */
  toRealMs(billing: Date): number;
}

export function createBillingClock(scale: number, originMs: number, realNow: () => number = Date.now): BillingClock {
  if (!(scale >= 1)) throw new Error(`billing clock scale must be at least 1, got ${scale}`);
  const toBilling = (realMs: number): Date => new Date(originMs + (realMs - originMs) * scale);
  return {
    now: () => toBilling(realNow()),
    toBilling: (real) => toBilling(real.getTime()),
    toRealMs: (billing) => originMs + Math.ceil((billing.getTime() - originMs) / scale),
  };
}
