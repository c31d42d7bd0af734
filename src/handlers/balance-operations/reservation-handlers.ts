import { thresholdEvents } from '../../domain/balance/billing-events';
import { thresholdLevelsOf } from '../../domain/balance/thresholds';
import { accept } from '../../domain/balance/validation';
import type { Catalog } from '../../domain/catalog/catalog';
import { reservationEvent, wireCommit, wireReservation } from '../../domain/balance-operations/reservation-events';
import {
  checkCommit,
  checkRelease,
  checkReserve,
  type CommitReservationCommand,
  type ReleaseReservationCommand,
  type ReserveBalanceCommand,
} from '../../domain/balance-operations/reservation-validation';
import type { Handler } from '../../contract/handlers';
import { commandMeta, wireBalances } from '../balance/replies';
import type { ReservationOutcome, ReservationStore } from './ports';

const reply = (outcome: ReservationOutcome, extra: Record<string, unknown> = {}) => ({
  status: 'Success',
  ...wireReservation(outcome.reservation),
  ...extra,
  balances: wireBalances(outcome.balances),
});

/** ReserveBalance: holds an amount of one sub-balance until committed, released or its time to live ends. */
export const createReserveBalance =
  (deps: { reservations: ReservationStore }): Handler<ReserveBalanceCommand> =>
  async (command, context) => {
    const r = accept(checkReserve(command), context.wholesaleCustomerId);
    const outcome = await deps.reservations.reserve(commandMeta(command.gpsi, context), {
      reservationId: r.reservationId,
      subBalanceInstId: r.subBalanceInstId,
      amount: r.amount,
      // The store starts the time to live on Redis's clock: `context.now` is this worker's, maybe skewed.
      ttlMs: r.ttlSeconds * 1000,
    });
    return { reply: reply(outcome), messages: [reservationEvent('BalanceReserved', outcome, outcome.reservation, context.commandId)], replayed: outcome.replayed };
  };

/** CommitReservation: the amount used is taken as usage (its thresholds reported), the rest released. */
export const createCommitReservation = (deps: { reservations: ReservationStore; catalog: Catalog }): Handler<CommitReservationCommand> => {
  const thresholds = thresholdLevelsOf(deps.catalog);
  return async (command, context) => {
    const c = accept(checkCommit(command), context.wholesaleCustomerId);
    const outcome = await deps.reservations.commit(commandMeta(command.gpsi, context), c, thresholds);
    return {
      reply: reply(outcome, wireCommit(outcome.reservation)),
      messages: [reservationEvent('ReservationCommitted', outcome, outcome.reservation, context.commandId), ...thresholdEvents(outcome, context.commandId)],
      replayed: outcome.replayed,
    };
  };
};

/** ReleaseReservation: the hold ends without use. */
export const createReleaseReservation =
  (deps: { reservations: ReservationStore }): Handler<ReleaseReservationCommand> =>
  async (command, context) => {
    const { reservationId } = accept(checkRelease(command), context.wholesaleCustomerId);
    const outcome = await deps.reservations.release(commandMeta(command.gpsi, context), reservationId);
    return { reply: reply(outcome), messages: [reservationEvent('ReservationReleased', outcome, outcome.reservation, context.commandId)], replayed: outcome.replayed };
  };
