// Avro record names of the reservation operations (schemas/balance/*.avsc, namespace wholesale.balance.v1).

export const RESERVATION_COMMANDS = ['ReserveBalance', 'CommitReservation', 'ReleaseReservation'] as const;
export type ReservationCommand = (typeof RESERVATION_COMMANDS)[number];

/** Events on the balance events topic, one per step of a reservation's life. */
export const RESERVATION_EVENTS = ['BalanceReserved', 'ReservationCommitted', 'ReservationReleased', 'ReservationExpired'] as const;
export type ReservationEvent = (typeof RESERVATION_EVENTS)[number];

/** Top-up once per payment or voucher reference, and adjustment with a reason code. */
export const CREDIT_COMMANDS = ['TopupBalance', 'AdjustBalance'] as const;
export type CreditCommand = (typeof CREDIT_COMMANDS)[number];
export const CREDIT_EVENTS = ['BalanceToppedUp', 'BalanceAdjusted'] as const;
export type CreditEvent = (typeof CREDIT_EVENTS)[number];

/** A transfer between two subscriptions of one partner (three idempotent steps, see transfer-handler.ts). */
export const TRANSFER_COMMANDS = ['TransferBalance'] as const;
/** Completed, or reversed (the target refused: the amount given back to the source). */
export const TRANSFER_EVENTS = ['BalanceTransferred', 'TransferReversed'] as const;
export type TransferEvent = (typeof TRANSFER_EVENTS)[number];
