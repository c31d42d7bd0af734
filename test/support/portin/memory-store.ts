import type { PortInRequest } from '../../../src/domain/portin/request';
import type { PortInStore, RecordedOutcome, RequestRef } from '../../../src/handlers/portin/ports';

/**
 * In-memory PortInStore for unit tests, with the same semantics as the Lua scripts: compare-and-set
 * writes that record the cause's outcome, history on replace, claims with a lease, a leased schedule.
 * Values are copied in and out (through JSON, as Redis does) so callers never share objects with it.
 */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export class MemoryPortInStore implements PortInStore {
  readonly requests = new Map<string, PortInRequest>();
  readonly history = new Map<string, Map<string, PortInRequest>>();
  readonly outcomes = new Map<string, RecordedOutcome>();
  readonly transactions = new Map<
    string,
    { commandId: string; payloadHash: string; gpsi: string; requestId: string; state: 'claimed' | 'settled'; claimedAt: number; reply?: Record<string, unknown> }
  >();
  readonly orders = new Map<string, RequestRef>();
  readonly schedule = new Map<string, number>();
  /** Counts writes, so tests can tell a replay from a fresh write. */
  writes = 0;

  constructor(private readonly claimLeaseMs = 30_000) {}

  async current(gpsi: string) {
    const request = this.requests.get(gpsi);
    return request && copy(request);
  }

  async byRequest(ref: RequestRef) {
    const current = this.requests.get(ref.gpsi);
    if (current?.requestId === ref.requestId) return copy(current);
    const archived = this.history.get(ref.gpsi)?.get(ref.requestId);
    return archived && copy(archived);
  }

  /** The number's subscription status, as the Redis script reads it beside the request (set by the kit). */
  subscriptionStatus: (gpsi: string) => Promise<string | undefined> = async () => undefined;

  async readForChange(gpsi: string, causeId: string) {
    const recorded = this.outcomes.get(`${gpsi}|${causeId}`);
    const current = this.requests.get(gpsi);
    const subscriptionStatus = await this.subscriptionStatus(gpsi);
    return { ...(recorded ? { recorded: copy(recorded) } : {}), ...(current ? { current: copy(current) } : {}), ...(subscriptionStatus ? { subscriptionStatus } : {}) };
  }

  async write(
    gpsi: string,
    causeId: string,
    expected: { requestId: string | null; portOrderVersion?: number; portStatus?: string },
    mode: 'update' | 'replace',
    next: PortInRequest,
    outcome: RecordedOutcome,
  ) {
    const recorded = this.outcomes.get(`${gpsi}|${causeId}`);
    if (recorded) return { kind: 'replayed' as const, outcome: copy(recorded) };
    const current = this.requests.get(gpsi);
    if ((current?.requestId ?? null) !== expected.requestId) return { kind: 'stale' as const };
    if (current && (current.portOrderVersion !== expected.portOrderVersion || current.portStatus !== expected.portStatus)) return { kind: 'stale' as const };
    if (mode === 'replace' && current) {
      const archive = this.history.get(gpsi) ?? new Map<string, PortInRequest>();
      archive.set(current.requestId, current);
      this.history.set(gpsi, archive);
    }
    this.requests.set(gpsi, copy(next));
    this.outcomes.set(`${gpsi}|${causeId}`, copy(outcome));
    this.writes += 1;
    return { kind: 'written' as const, outcome: copy(outcome) };
  }

  async claimTransaction(owner: string, ptid: string, claim: { commandId: string; payloadHash: string; gpsi: string; requestId: string; now: Date }) {
    const key = `${owner}|${ptid}`;
    const held = this.transactions.get(key);
    const now = claim.now.getTime();
    if (!held) {
      this.transactions.set(key, { ...claim, state: 'claimed', claimedAt: now });
      return { kind: 'claimed' as const, requestId: claim.requestId };
    }
    if (held.payloadHash !== claim.payloadHash) return { kind: 'mismatch' as const };
    if (held.commandId === claim.commandId) return { kind: 'claimed' as const, requestId: held.requestId };
    if (held.state === 'settled') return { kind: 'duplicate' as const, reply: copy(held.reply as Record<string, unknown>) };
    if (now - held.claimedAt < this.claimLeaseMs) return { kind: 'busy' as const };
    held.commandId = claim.commandId;
    held.claimedAt = now;
    return { kind: 'claimed' as const, requestId: held.requestId };
  }

  async settleTransaction(owner: string, ptid: string, commandId: string, reply: Record<string, unknown>) {
    const held = this.transactions.get(`${owner}|${ptid}`);
    if (held?.commandId === commandId && held.state !== 'settled') Object.assign(held, { state: 'settled', reply: copy(reply) });
  }

  async releaseTransaction(owner: string, ptid: string, commandId: string) {
    const held = this.transactions.get(`${owner}|${ptid}`);
    if (held?.commandId === commandId && held.state === 'claimed') this.transactions.delete(`${owner}|${ptid}`);
  }

  async findTransaction(owner: string, ptid: string) {
    const held = this.transactions.get(`${owner}|${ptid}`);
    return held && { gpsi: held.gpsi, requestId: held.requestId };
  }

  async indexPortOrder(portOrderId: string, ref: RequestRef) {
    const held = this.orders.get(portOrderId);
    if (!held) this.orders.set(portOrderId, copy(ref));
    return !held || (held.gpsi === ref.gpsi && held.requestId === ref.requestId);
  }

  async findPortOrder(portOrderId: string) {
    const held = this.orders.get(portOrderId);
    return held && copy(held);
  }

  async scheduleExpiry(member: string, deadline: Date) {
    this.schedule.set(member, deadline.getTime());
  }

  async claimDueExpiries(now: Date, leaseMs: number, limit: number) {
    const due = [...this.schedule.entries()]
      .filter(([, at]) => at <= now.getTime())
      .sort(([, a], [, b]) => a - b)
      .slice(0, limit)
      .map(([member]) => member);
    for (const member of due) this.schedule.set(member, now.getTime() + leaseMs);
    return due;
  }

  async completeExpiry(member: string) {
    this.schedule.delete(member);
  }
}
