/**
 * The FOC (firm order commitment) date's activation window: while a port is CONFIRMED, the partner may ask
 * for the cut-over on demand (ActivatePortIn) on the confirmed FOC date's day, UTC — from its start to its
 * end — as porting APIs offer activation "at FOC, or on demand within the window". Outside it the request
 * waits for the NP side's own cut-over at the FOC date (or its abandonment deadline).
 */
export interface ActivationWindow {
  /** ISO 8601, inclusive. */
  start: string;
  /** ISO 8601, exclusive. */
  end: string;
}

const DAY_MS = 24 * 3600 * 1000;

export function activationWindow(confirmedFocDate: string | undefined): ActivationWindow | undefined {
  const at = confirmedFocDate === undefined ? NaN : Date.parse(confirmedFocDate);
  if (Number.isNaN(at)) return undefined;
  const start = Math.floor(at / DAY_MS) * DAY_MS;
  return { start: new Date(start).toISOString(), end: new Date(start + DAY_MS).toISOString() };
}

export const isInside = (window: ActivationWindow, now: Date): boolean => now.getTime() >= Date.parse(window.start) && now.getTime() < Date.parse(window.end);
