import type { OutgoingMessage } from '../../contract/messages';
import { balanceEvent, deterministicId, wireChange } from '../balance/billing-events';
import type { BalanceOutcome } from '../balance/outcome';
import { fromMilli, type Milli } from '../balance/units';
import type { ReservationEvent } from './records';

/** What a reservation event names of the reservation (the store's ReservationFacts). */
export interface ReservationShown {
  reservationId: string;
  subBalanceInstId: string;
  amount: Milli;
  expiresAt: string;
  used?: Milli;
  charged?: Milli;
}

/** The reservation fields every reply and event of a reservation carries. */
export const wireReservation = (r: ReservationShown) => ({
  reservationId: r.reservationId,
  subBalanceInstId: r.subBalanceInstId,
  reservedAmount: fromMilli(r.amount),
  expiresAt: r.expiresAt,
});

/** A commit's amounts: what was used, and what was taken from the sub-balance. */
export const wireCommit = (r: ReservationShown) => ({ usedAmount: fromMilli(r.used ?? 0), chargedAmount: fromMilli(r.charged ?? 0) });

/**
 * One reservation event from an outcome (recorded, so a replay publishes the same); `idSeed` makes its
 * CloudEvents id: the command id, or for an expiry the subscription and reservation (published once per end).
 */
export function reservationEvent(type: ReservationEvent, outcome: BalanceOutcome, reservation: ReservationShown, idSeed: string): OutgoingMessage {
  const fields = {
    ...wireReservation(reservation),
    ...(type === 'ReservationCommitted' ? { ...wireCommit(reservation), changes: outcome.changes.map(wireChange) } : {}),
  };
  return balanceEvent(type, outcome, deterministicId(`${idSeed}/${type}`), fields);
}
