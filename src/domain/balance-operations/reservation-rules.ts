import { applyQuantity } from '../balance/arithmetic';
import { fromMilli, type Milli } from '../balance/units';

// Reservations for real-time charging, pure: the source of truth of the rules that
// scripts/lib/balance/6-reservations.lua applies atomically in Redis (test/integration/balance-operations.test.ts
// runs both on the same inputs). A reservation holds part of one sub-balance's remaining balance: the held
// units stay in `remaining` until a commit uses them, and `reserved` (the sum of the sub-balance's live
// reservations) is what no other reservation or Subtract may take. Change a rule here first.

/** What a reservation rule reads of a sub-balance. */
export interface Held {
  remaining: Milli;
  purchased: Milli;
  /** Sum of the sub-balance's live reservations. */
  reserved: Milli;
}

/** What may still be reserved or used: remaining − reserved, never below zero (a renewal may lower remaining under what is held). */
export const availableOf = (b: Pick<Held, 'remaining' | 'reserved'>): Milli => Math.max(0, b.remaining - b.reserved);

/** A reservation of `amount`: refused, with both figures, when more than is available. */
export function reserveAmounts(b: Held, amount: Milli): Held | { reason: string } {
  const available = availableOf(b);
  if (amount > available) return { reason: `exceeds the available balance (requested ${fromMilli(amount)}, available ${fromMilli(available)})` };
  return { ...b, reserved: b.reserved + amount };
}

/**
 * The commit of a reservation of `held` units of which `used` were used (used ≤ held, checked against the
 * reservation first): the hold ends and the used units are taken from the balance as usage — the grant
 * first, then purchased credit (applyQuantity). `charged` is what was taken: `used`, or what remains when a
 * renewal or cancellation left less.
 */
export function commitAmounts(b: Held, held: Milli, used: Milli): Held & { charged: Milli } {
  const charged = Math.min(used, b.remaining);
  const after = applyQuantity(b, 'Subtract', charged);
  if ('reason' in after) throw new Error(after.reason); // unreachable: charged ≤ remaining
  return { ...after, reserved: Math.max(0, b.reserved - held), charged };
}

/** The end of a reservation of `held` units without use (release, expiry): only the hold goes. */
export const releaseAmounts = (b: Held, held: Milli): Held => ({ ...b, reserved: Math.max(0, b.reserved - held) });

/** A commit's used amount above the reservation is refused, with both figures. */
export const overUse = (held: Milli, used: Milli): string | undefined => (used > held ? `exceeds the reserved amount (used ${fromMilli(used)}, reserved ${fromMilli(held)})` : undefined);
