// Quantities are kept as whole numbers of thousandths of a unit ("milli-units") everywhere inside the
// service (Redis, Lua, ledger), so Add and Subtract are exact integer arithmetic — 0.1 + 0.2 is exactly
// 0.3 — and Lua's doubles stay exact (every integer below 2^53 is). Conversion happens only at the edges:
// commands and catalog amounts in, replies and events out.

export const MILLI_PER_UNIT = 1000;

/** Largest quantity or balance, in units: 10^12 units is 10^15 milli-units, well below 2^53. */
export const MAX_UNITS = 1_000_000_000_000;
export const MAX_MILLI = MAX_UNITS * MILLI_PER_UNIT;

export type Milli = number;

/**
 * Converts a quantity to milli-units, or explains why it cannot be one: it must be a finite number above
 * zero, at most MAX_UNITS, with no more than three decimals.
 */
export function toMilli(quantity: unknown): { milli: Milli } | { reason: string } {
  if (typeof quantity !== 'number' || !Number.isFinite(quantity)) return { reason: 'must be a finite number' };
  if (quantity <= 0) return { reason: 'must be greater than zero' };
  if (quantity > MAX_UNITS) return { reason: `must be at most ${MAX_UNITS}` };
  const milli = Math.round(quantity * MILLI_PER_UNIT);
  // A quantity with more than three decimals would be silently rounded: refuse it instead. Dividing back is
  // exact for every decimal with at most three places (both are the nearest double to the same decimal).
  if (milli / MILLI_PER_UNIT !== quantity) return { reason: 'must have at most 3 decimals' };
  if (milli === 0) return { reason: 'must be greater than zero' };
  return { milli };
}

export const fromMilli = (milli: Milli): number => milli / MILLI_PER_UNIT;
