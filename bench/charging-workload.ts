import { randomSource, type BenchSubscription, type PlannedCall, type UpdateTarget, type Workload } from './workload';

/**
 * A charging system's traffic, one of two ways, so their costs can be compared per operation: every charge
 * as one UpdateBalances Subtract of 1 MB (`updateBalances`), or as a reservation of 1 MB followed by its
 * commit of 1 MB used (`reserveCommit`, docs/balance.md Reservations), on a subscription drawn at random.
 * A commit names a reservation made `commitLag` calls before — the reserve certainly handled by then, as
 * a session's usage comes well after its reservation — so past the first `commitLag` calls the two
 * alternate: half the operations reserve, half commit. No I/O: the drivers send what `next()` returns.
 */
export type ChargingMix = 'updateBalances' | 'reserveCommit';

export class ChargingWorkload implements Workload {
  private readonly random: () => number;
  private readonly held: { gpsi: string; customer: string; reservationId: string }[] = [];
  private reservations = 0;
  readonly counts: Record<string, number> = {};

  constructor(
    private readonly subscriptions: readonly BenchSubscription[],
    private readonly target: UpdateTarget,
    private readonly mix: ChargingMix,
    private readonly seed = 1,
    private readonly commitLag = 2048,
  ) {
    if (subscriptions.length === 0) throw new Error('the workload needs subscriptions');
    this.random = randomSource(seed);
  }

  next(): PlannedCall {
    const call = this.plan();
    this.counts[call.operation] = (this.counts[call.operation] ?? 0) + 1;
    return call;
  }

  private plan(): PlannedCall {
    if (this.mix === 'reserveCommit' && this.held.length > this.commitLag) {
      const { gpsi, customer, reservationId } = this.held.shift()!;
      return { operation: 'commitReservation', input: { gpsi, reservationId, usedAmount: 1 }, customer };
    }
    const { gpsi, customer } = this.subscriptions[Math.floor(this.random() * this.subscriptions.length)];
    const subBalanceInstId = `${gpsi}-${this.target.suffix}`;
    if (this.mix === 'updateBalances') {
      const balances = [{ subBalanceInstId, balanceType: 'Main', subBalanceType: this.target.subBalanceType, action: 'Subtract', quantity: 1, unitType: this.target.unitType }];
      return { operation: 'updateBalances', input: { gpsi, balances }, customer };
    }
    const reservationId = `bench-${this.seed}-${this.reservations++}`;
    this.held.push({ gpsi, customer, reservationId });
    return { operation: 'reserveBalance', input: { gpsi, reservationId, subBalanceInstId, amount: 1, ttlSeconds: 3600 }, customer };
  }
}
