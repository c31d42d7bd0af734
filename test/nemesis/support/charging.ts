// The nemesis's charging partner: an online charging system holding reservations on the run's sub-balances,
// as many sessions at once, each waiting for every reply as a charging system must (the next step depends on
// it). A session reserves 2 units for RESERVATION_TTL_MS and ends the reservation in one of four ways, in
// turn: commits 1 unit of it, releases it, leaves it to the expiry scheduler, or commits it about when its
// time ends (racing the scheduler: exactly one of the two may win). Every send, reply and when it came is
// recorded, and when each ReservationExpired event first arrived (a reader of the events topic): the checker
// holds each reservation to exactly one end, none before its time.
import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../../../src/app/config';
import { HEADER } from '../../../src/contract/headers';
import { TestRequester, TopicReader } from '../../support/harness';
import { faultPartnerTopics, FAULT_CUSTOMER, partnerToken } from '../../faults/support/fault-config';
import type { History, ReservationEnd } from './history';
import type { Target } from './partners';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BALANCE = (name: string) => `wholesale.balance.v1.${name}`;
/** Long enough for a reply in a quiet moment, short enough that many expire within a run. */
export const RESERVATION_TTL_MS = 10_000;
const ENDS: readonly ReservationEnd[] = ['commit', 'release', 'expire', 'late-commit'];
/** A reply may wait out several faults in a row; one that has not come in 3 minutes never will. */
const REPLY_TIMEOUT_MS = 180_000;

export class ChargingPartner {
  private stopping = false;
  private readonly sessions: Promise<void>[] = [];
  private next = 0;
  /** Reservations begun. */
  reservations = 0;

  private readonly seen = new Set<string>();
  private expiries?: TopicReader;

  private constructor(
    private readonly requester: TestRequester,
    private readonly targets: Target[],
    private readonly history: History,
  ) {}

  /** Its requester reads the partner's balance reply topic, its expiry reader the balance events topic (both read_committed, from the start). */
  static async start(config: ServiceConfig, targets: Target[], history: History): Promise<ChargingPartner> {
    const requester = await TestRequester.start(config, [faultPartnerTopics(config).balanceReplies], { tokenProvider: partnerToken });
    const partner = new ChargingPartner(requester, targets, history);
    partner.expiries = await TopicReader.start(config, [config.topics.balanceEvents], (event) => {
      const reservationId = String(event.value.reservationId ?? '');
      if (event.recordName !== BALANCE('ReservationExpired') || partner.seen.has(reservationId)) return;
      partner.seen.add(reservationId);
      history.push({ kind: 'expiry-seen', reservationId, at: Date.now() });
    });
    return partner;
  }

  begin(sessions: number): void {
    for (let i = 0; i < sessions; i++) this.sessions.push(this.session());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.sessions);
    await Promise.all([this.requester.stop(), this.expiries?.stop()]);
  }

  private async session(): Promise<void> {
    while (!this.stopping) {
      // from the last target backwards: the other partners go forwards, so numbers see both at once
      const target = this.targets[this.targets.length - 1 - (this.next % this.targets.length)];
      const end = ENDS[this.next++ % ENDS.length];
      this.reservations++;
      const reservationId = `nemesis-${randomUUID()}`;
      const reserveId = randomUUID();
      const { gpsi, subBalanceInstId } = target;
      const sentAt = Date.now();
      this.history.push({ kind: 'reservation', reservationId, reserveId, gpsi, subBalanceInstId, sentAt, ttlMs: RESERVATION_TTL_MS, end });
      const reserved = await this.command(reserveId, gpsi, BALANCE('ReserveBalance'), { gpsi, reservationId, subBalanceInstId, amount: 2, ttlSeconds: RESERVATION_TTL_MS / 1000 });
      if (reserved !== 'Success' || end === 'expire') continue;
      // a commit or release within the first 40 % of the time, or the late commit within a second of its end
      const answeredAt = Date.now();
      const settleAt = end === 'late-commit' ? sentAt + RESERVATION_TTL_MS - 1000 + Math.random() * 2000 : answeredAt + Math.random() * RESERVATION_TTL_MS * 0.4;
      await sleep(Math.max(0, settleAt - Date.now()));
      const operation = end === 'release' ? 'ReleaseReservation' : 'CommitReservation';
      const id = randomUUID();
      this.history.push({ kind: 'settle', id, reservationId, operation, sentAt: Date.now() });
      await this.command(id, gpsi, BALANCE(operation), operation === 'CommitReservation' ? { gpsi, reservationId, usedAmount: 1 } : { gpsi, reservationId });
    }
  }

  /** Sends a command (again under the same id while Kafka does not acknowledge it) and waits for its reply: its status, or undefined without one. */
  private async command(id: string, gpsi: string, recordName: string, value: object): Promise<string | undefined> {
    const reply = this.requester.awaitReply(id, REPLY_TIMEOUT_MS).then(
      (r) => {
        const status = r.headers[HEADER.status] ?? '';
        const { expiresAt } = r.value as { expiresAt?: string };
        this.history.push({ kind: 'answer', id, status, at: Date.now(), ...(expiresAt ? { expiresAt } : {}) });
        return status;
      },
      () => undefined, // no reply: the checker says so (reply-missing)
    );
    for (let attempt = 0; attempt < 30; attempt++) {
      const at = Date.now();
      try {
        await this.requester.dispatch('balanceCommands', recordName, value, { key: gpsi, correlationId: id, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
        this.history.push({ kind: 'send', at, id, gpsi, channel: 'charging', outcome: 'committed' });
        break;
      } catch {
        this.history.push({ kind: 'send', at, id, gpsi, channel: 'charging', outcome: 'unknown' });
        await sleep(1000);
      }
    }
    return reply;
  }
}

/** How the run's reservations ended, for its summary: `committed 40 (late ones won 6 of 11), released 12, expired 25, refused 0`. */
export function describeReservations(history: History): string {
  const success = new Set(history.flatMap((e) => ((e.kind === 'reply' || e.kind === 'answer') && e.status === 'Success' ? [e.id] : [])));
  const expired = new Set(history.flatMap((e) => (e.kind === 'expired' ? [e.reservationId] : [])));
  const settled = new Map(history.flatMap((e) => (e.kind === 'settle' && success.has(e.id) ? [[e.reservationId, e.operation] as const] : [])));
  const reservations = history.flatMap((e) => (e.kind === 'reservation' ? [e] : []));
  const late = reservations.filter((r) => r.end === 'late-commit' && success.has(r.reserveId));
  const count = (operation: string) => [...settled.values()].filter((o) => o === operation).length;
  return [
    `committed ${count('CommitReservation')} (late ones won ${late.filter((r) => settled.has(r.reservationId)).length} of ${late.length})`,
    `released ${count('ReleaseReservation')}`,
    `expired ${expired.size}`,
    `refused ${reservations.filter((r) => !success.has(r.reserveId)).length}`,
  ].join(', ');
}
