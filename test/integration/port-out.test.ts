import { randomUUID } from 'node:crypto';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { PORTOUT_NP_RESPONSE_RECORDS } from '../../src/domain/port-out/records';
import { createCommand, gpsiEndingIn } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';
import type { Reply } from '../support/harness';
import { until } from '../support/until';

/**
 * Port-out over the real stack (issue 48): the NP side asks for one of our numbers (played by hand), the
 * owning partner answers over Kafka or the deadline does, the simulator completes an approved port-out,
 * and the subscription ends: its balances closed in SubscriptionPortedOut, later commands NOT_FOUND
 * "ported out", its history still readable. The validation window is short here so the deadline comes
 * within the test; the partner's answers come within milliseconds of the request.
 */
const WINDOW_SECONDS = 4;

describe('port-out (real stack)', () => {
  const stack = journeyWithNpSide({ PORTOUT_VALIDATION_WINDOW_SECONDS: String(WINDOW_SECONDS), PORTOUT_DEADLINE_SWEEP_INTERVAL_MS: '200' });
  let codec: AvroCodec;
  beforeAll(() => {
    codec = new AvroCodec(stack.j.config.schemaRegistryUrl);
  });

  const balance = (operation: string, value: object, correlationId = randomUUID()) =>
    stack.j.requester.send('balanceCommands', `wholesale.balance.v1.${operation}`, value, { headers: { wholesaleCustomerId: 'WC-1' }, key: (value as { gpsi: string }).gpsi, correlationId });

  /** A number ported in and live (WP-BASIC for WC-1): its subscription ACTIVE. */
  async function activeNumber(): Promise<string> {
    const gpsi = gpsiEndingIn('01');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    await stack.j.waitForStatus(gpsi, 'COMPLETED');
    await stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionActivated');
    return gpsi;
  }

  /** The NP side asks for the number: a PortOutRequested on np.portin.responses.v1 (`responseId` given: a redelivery of that record). */
  async function requestPortOut(gpsi: string, again?: { responseId: string; portOutId: string; sentAt: string }): Promise<string> {
    const value = again
      ? { ...again, gpsi, gainingProvider: 'OTHER-TELCO', desiredDueDate: null }
      : { responseId: `test-${randomUUID()}`, gpsi, portOutId: `PORT-OUT-${randomUUID().slice(0, 8)}`, gainingProvider: 'OTHER-TELCO', desiredDueDate: null, sentAt: new Date().toISOString() };
    const topic = stack.j.config.topics.npResponses;
    await stack.j.requester.sendRaw(topic, { key: gpsi, value: await codec.encode(topic, PORTOUT_NP_RESPONSE_RECORDS.PortOutRequested, value) });
    sent.set(value.portOutId, value);
    return value.portOutId;
  }
  const sent = new Map<string, { responseId: string; portOutId: string; sentAt: string }>();

  const portOutEvents = (gpsi: string): Reply[] => stack.j.eventsFor(gpsi).filter((e) => e.recordName === 'wholesale.portin.v1.PortOutEvent');
  const portOutEvent = (gpsi: string, status: string) =>
    until(`PortOutEvent ${status} for ${gpsi}`, async () => portOutEvents(gpsi).find((e) => e.value.portOutStatus === status), { timeoutMs: 20000, intervalMs: 50 });
  const answer = (gpsi: string, portOutId: string, decision: string, reasonCode?: string) => stack.j.send('AnswerPortOut', { gpsi, portOutId, decision, reasonCode: reasonCode ?? null });

  it('approved by the partner: the NP side is told, the port-out completes, the subscription ends with its balances in SubscriptionPortedOut, later commands answer NOT_FOUND "ported out", the history stays', async () => {
    const gpsi = await activeNumber();
    const portOutId = await requestPortOut(gpsi);
    const asked = await portOutEvent(gpsi, 'VALIDATION_PENDING');
    expect(asked.value).toMatchObject({ portOutId, gainingProvider: 'OTHER-TELCO', wholesaleCustomerId: 'WC-1', previousPortOutStatus: null });
    expect(Date.parse(asked.value.validationDeadline) - Date.parse(asked.value.eventTime)).toBe(WINDOW_SECONDS * 1000);
    expect(asked.headers.ce_id).toBe(asked.value.eventId);

    expect((await answer(gpsi, portOutId, 'APPROVE')).value).toEqual({ status: 'Success', gpsi, portOutId, portOutStatus: 'APPROVED' });
    const decision = await stack.np.find(gpsi, 'np.portin.v1.PortOutDecision');
    expect(decision.value).toMatchObject({ portOutId, decision: 'APPROVED', decidedBy: 'PARTNER', reasonCode: null });
    await portOutEvent(gpsi, 'COMPLETED');

    const ended = await stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionPortedOut');
    expect(ended.value.reason).toBe('PORTED_OUT');
    // WP-BASIC's four allowances and the add-on 2000001's, each closed with what it had left
    expect(ended.value.changes.length).toBeGreaterThanOrEqual(4);
    for (const change of ended.value.changes) {
      expect(change).toMatchObject({ change: 'Closed', after: null });
      expect(change.before.remainingBalance).toBeGreaterThan(0);
    }

    const query = await balance('QueryBalances', { gpsi });
    expect(query.value).toMatchObject({ status: 'NOT_FOUND', error: { problems: [{ path: 'gpsi', reason: 'ported out' }] } });
    const update = await balance('UpdateBalances', { gpsi, balances: [{ subBalanceInstId: `${gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 1, unitType: 'Min' }] });
    expect(update.value).toMatchObject({ status: 'NOT_FOUND', error: { problems: [{ path: 'gpsi', reason: 'ported out' }] } });
    const history = await balance('QueryBalanceHistory', { gpsi, limit: 5 });
    expect(history.value.status).toBe('Success');
    expect(history.value.entries[0]).toMatchObject({ operation: 'PortOut' });
    expect((await stack.j.send('QueryPortOut', { gpsi })).value).toMatchObject({ status: 'Success', portOutId, portOutStatus: 'COMPLETED', decidedBy: 'PARTNER' });
    expect((await answer(gpsi, portOutId, 'REJECT', 'PF')).value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'portOutStatus', reason: 'is COMPLETED' }] } });
  });

  it('rejected by the partner with a listed reason: nothing completes and the subscription stays; a bad answer lists every problem', async () => {
    const gpsi = await activeNumber();
    const portOutId = await requestPortOut(gpsi);
    await portOutEvent(gpsi, 'VALIDATION_PENDING');
    const bad = await stack.j.send('AnswerPortOut', { gpsi: '12', portOutId, decision: 'REJECT', reasonCode: 'XX' });
    expect(bad.value.status).toBe('BAD_REQUEST');
    expect([...new Set(bad.value.error.problems.map((e: { path: string }) => e.path))].sort()).toEqual(['gpsi', 'reasonCode']);
    expect((await answer(gpsi, 'PORT-OUT-unknown', 'APPROVE')).value.status).toBe('NOT_FOUND');

    expect((await answer(gpsi, portOutId, 'REJECT', 'PF')).value).toMatchObject({ status: 'Success', portOutStatus: 'REJECTED' });
    const decision = await stack.np.find(gpsi, 'np.portin.v1.PortOutDecision');
    expect(decision.value).toMatchObject({ decision: 'REJECTED', reasonCode: 'PF', decidedBy: 'PARTNER' });
    expect((await portOutEvent(gpsi, 'REJECTED')).value).toMatchObject({ reasonCode: 'PF', reasonDescription: 'Port freeze: the account holder asked to block port-outs' });
    expect((await answer(gpsi, portOutId, 'APPROVE')).value).toMatchObject({ status: 'CONFLICT' });
    expect((await balance('QueryBalances', { gpsi })).value.status).toBe('Success');
  });

  it('unanswered: approved by its deadline, then completed', async () => {
    const gpsi = await activeNumber();
    const portOutId = await requestPortOut(gpsi);
    const asked = await portOutEvent(gpsi, 'VALIDATION_PENDING');
    const approved = await until('the deadline decision', async () => portOutEvents(gpsi).find((e) => e.value.portOutStatus === 'APPROVED'), { timeoutMs: 20000, intervalMs: 100 });
    expect(approved.value).toMatchObject({ portOutId, decidedBy: 'DEADLINE', correlationId: null });
    expect(Date.parse(approved.value.eventTime)).toBeGreaterThanOrEqual(Date.parse(asked.value.validationDeadline));
    expect((await stack.np.find(gpsi, 'np.portin.v1.PortOutDecision')).value).toMatchObject({ decision: 'APPROVED', decidedBy: 'DEADLINE' });
    await stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionPortedOut');
  });

  it('asked while the number is still porting in: refused at once (REJECTED, reason PI, decidedBy SYSTEM), the porting partner told; the record redelivered repeats the same answer', async () => {
    // a number ending in 00 gets only its order id from the simulator: its port-in stays OPEN, its subscription PENDING
    const gpsi = gpsiEndingIn('00');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    await stack.np.request(gpsi);
    const portOutId = await requestPortOut(gpsi);
    const refused = await portOutEvent(gpsi, 'REJECTED');
    expect(refused.value).toMatchObject({ portOutId, previousPortOutStatus: null, decidedBy: 'SYSTEM', reasonCode: 'PI', wholesaleCustomerId: 'WC-1' });
    expect(refused.value.reasonDescription).toBe('A port-in of the number is still in progress');
    const decision = await stack.np.find(gpsi, 'np.portin.v1.PortOutDecision');
    expect(decision.value).toMatchObject({ portOutId, decision: 'REJECTED', reasonCode: 'PI', decidedBy: 'SYSTEM', correlationId: null });
    expect((await stack.j.send('QueryPortOut', { gpsi })).value).toMatchObject({ status: 'Success', portOutId, portOutStatus: 'REJECTED', decidedBy: 'SYSTEM', reasonCode: 'PI' });
    expect((await answer(gpsi, portOutId, 'APPROVE')).value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'portOutStatus', reason: 'is REJECTED' }] } });

    // the NP side's record redelivered: the same event (same ce_id) and decision again, nothing new
    await requestPortOut(gpsi, sent.get(portOutId));
    await until('the replayed PortOutEvent', async () => (portOutEvents(gpsi).length >= 2 ? true : undefined), { timeoutMs: 20000, intervalMs: 50 });
    const decisions = await until('the replayed PortOutDecision', async () => {
      const found = stack.np.seen.filter((r) => r.key === gpsi && r.recordName === 'np.portin.v1.PortOutDecision');
      return found.length >= 2 ? found : undefined;
    });
    expect(decisions[1].value).toEqual(decisions[0].value);
    const events = portOutEvents(gpsi);
    expect(events.map((e) => e.headers.ce_id)).toEqual([refused.headers.ce_id, refused.headers.ce_id]);
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
  });

  /** Ports the number out to its end (approved by the partner, completed by the simulator): its SubscriptionPortedOut (not that of `endedBefore`). */
  async function portedOut(gpsi: string, endedBefore?: string): Promise<Reply> {
    const portOutId = await requestPortOut(gpsi);
    await until(`port-out ${portOutId} asked`, async () => portOutEvents(gpsi).find((e) => e.value.portOutId === portOutId), { timeoutMs: 20000, intervalMs: 50 });
    expect((await answer(gpsi, portOutId, 'APPROVE')).value.portOutStatus).toBe('APPROVED');
    return stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionPortedOut', (v) => v.subscriptionId !== endedBefore);
  }
  const activations = (gpsi: string, count: number) =>
    until(
      `${count} SubscriptionActivated for ${gpsi}`,
      async () => {
        const found = stack.np.seen.filter((r) => r.key === gpsi && r.recordName === 'wholesale.balance.v1.SubscriptionActivated');
        return found.length >= count ? found : undefined;
      },
      { timeoutMs: 30000, intervalMs: 100 },
    );

  it('ported out, then back in: eligible, a new subscription replaces the ended one, balances work on it, the old history stays readable under the old subscription id', async () => {
    const gpsi = await activeNumber();
    const subtract = { subBalanceInstId: `${gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 3, unitType: 'Min' };
    expect((await balance('UpdateBalances', { gpsi, balances: [subtract] })).value.status).toBe('Success');
    // a reservation still held when the number leaves belongs to the ended subscription
    const held = await balance('ReserveBalance', { gpsi, reservationId: 'R-held', subBalanceInstId: `${gpsi}-1`, amount: 2, ttlSeconds: 3600 });
    expect(held.value.status).toBe('Success');
    const ended = await portedOut(gpsi);
    const oldSubscriptionId = ended.value.subscriptionId as string;

    const eligibility = await stack.j.send('CheckPortInEligibility', { gpsi });
    expect(eligibility.value).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible' });
    const again = createCommand(gpsi);
    expect((await stack.j.send('CreatePortIn', again)).value).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
    const [, activated] = await activations(gpsi, 2);
    expect(activated.value.subscriptionId).not.toBe(oldSubscriptionId);
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ partnerTransactionId: again.partnerTransactionId, portStatus: 'COMPLETED' });

    // the new subscription: full balances, commands act on it, its own history only
    const balances = await balance('QueryBalances', { gpsi });
    expect(balances.value.status).toBe('Success');
    const subBalances: { subBalanceInstId: string; subBalanceType: string }[] = balances.value.balances.flatMap((b: { subBalances: object[] }) => b.subBalances);
    expect(subBalances.map((sb) => sb.subBalanceInstId)).not.toContain(`${gpsi}-1`); // instance ids are never reused for one number
    const voice = subBalances.find((sb) => sb.subBalanceType === 'On-Net Voice')!;
    const update = await balance('UpdateBalances', { gpsi, balances: [{ ...subtract, subBalanceInstId: voice.subBalanceInstId, quantity: 1 }] });
    expect(update.value.status).toBe('Success');
    const commit = await balance('CommitReservation', { gpsi, reservationId: 'R-held', usedAmount: 1 });
    expect(commit.value.status).toBe('NOT_FOUND');
    const now = (await balance('QueryBalanceHistory', { gpsi, limit: 50 })).value;
    expect(now.status).toBe('Success');
    expect(now.entries.map((e: { operation: string }) => e.operation)).not.toContain('PortOut');
    expect(now.entries[0].operation).toBe('UpdateBalances');
    expect((await balance('QueryBalanceHistory', { gpsi, limit: 5, subscriptionId: activated.value.subscriptionId })).value.entries).toEqual(now.entries.slice(0, 5));

    // the ended subscription's history, as it was: its closing entry first, the update before it
    const old = (await balance('QueryBalanceHistory', { gpsi, limit: 50, subscriptionId: oldSubscriptionId })).value;
    expect(old.status).toBe('Success');
    expect(old.entries[0]).toMatchObject({ operation: 'PortOut' });
    expect(old.entries.some((e: { operation: string; subBalanceInstId?: string }) => e.operation === 'UpdateBalances')).toBe(true);
    const stranger = await stack.j.requester.send(
      'balanceCommands',
      'wholesale.balance.v1.QueryBalanceHistory',
      { gpsi, limit: 5, subscriptionId: oldSubscriptionId },
      { headers: { wholesaleCustomerId: 'WC-2' }, key: gpsi, correlationId: randomUUID() },
    );
    expect(stranger.value.status).toBe('NOT_FOUND');
    expect((await balance('QueryBalanceHistory', { gpsi, subscriptionId: 'no-such-subscription' })).value.status).toBe('NOT_FOUND');

    // and the number can port out again, from its new subscription
    const secondEnd = await portedOut(gpsi, oldSubscriptionId);
    expect(secondEnd.value.subscriptionId).toBe(activated.value.subscriptionId);
  });

  it('ported out, then back in through a port order', async () => {
    const gpsi = await activeNumber();
    await portedOut(gpsi);
    const { partnerTransactionId: _p, gpsi: _g, ...shared } = createCommand(gpsi);
    void _p;
    void _g;
    const orderId = `ORD-${randomUUID().slice(0, 12)}`;
    const eligibility = await stack.j.requester.send(
      'portinCommands',
      'wholesale.portin.v1.CheckPortOrderEligibility',
      { numbers: [gpsi] },
      { headers: { wholesaleCustomerId: 'WC-1' }, key: 'eligibility', correlationId: randomUUID() },
    );
    expect(eligibility.value.numbers).toEqual([{ gpsi, eligibilityStatus: 'Eligible', reasonCode: null, reasonDesc: null }]);
    const order = await stack.j.requester.send(
      'portinCommands',
      'wholesale.portin.v1.CreatePortOrder',
      { ...shared, orderId, numbers: [{ gpsi }] },
      { headers: { wholesaleCustomerId: 'WC-1' }, key: orderId, correlationId: randomUUID() },
    );
    expect(order.value).toMatchObject({ status: 'Success', createdCount: 1, refusedCount: 0 });
    await activations(gpsi, 2);
    expect((await balance('QueryBalances', { gpsi })).value.status).toBe('Success');
  });

  it('withdrawn by the NP side before it completes: CANCELLED, the subscription stays, an answer after it is a CONFLICT, the record redelivered changes nothing more', async () => {
    const gpsi = await activeNumber();
    const portOutId = await requestPortOut(gpsi);
    await portOutEvent(gpsi, 'VALIDATION_PENDING');
    const value = { responseId: `test-${randomUUID()}`, gpsi, portOutId, reason: 'the customer stays', sentAt: new Date().toISOString() };
    const topic = stack.j.config.topics.npResponses;
    const cancel = async () => stack.j.requester.sendRaw(topic, { key: gpsi, value: await codec.encode(topic, PORTOUT_NP_RESPONSE_RECORDS.PortOutCancelled, value) });
    await cancel();
    const cancelled = await portOutEvent(gpsi, 'CANCELLED');
    expect(cancelled.value).toMatchObject({ portOutId, previousPortOutStatus: 'VALIDATION_PENDING', wholesaleCustomerId: 'WC-1', decidedBy: null, cancelReason: 'the customer stays' });
    expect((await stack.j.send('QueryPortOut', { gpsi })).value).toMatchObject({ status: 'Success', portOutId, portOutStatus: 'CANCELLED', cancelReason: 'the customer stays' });
    expect((await answer(gpsi, portOutId, 'APPROVE')).value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'portOutStatus', reason: 'is CANCELLED' }] } });
    expect((await balance('QueryBalances', { gpsi })).value.status).toBe('Success');
    expect(stack.np.seen.filter((r) => r.key === gpsi && r.recordName === 'np.portin.v1.PortOutDecision')).toEqual([]);

    await cancel();
    await until('the replayed CANCELLED event', async () => (portOutEvents(gpsi).filter((e) => e.value.portOutStatus === 'CANCELLED').length >= 2 ? true : undefined), {
      timeoutMs: 20000,
      intervalMs: 50,
    });
    expect(
      new Set(
        portOutEvents(gpsi)
          .filter((e) => e.value.portOutStatus === 'CANCELLED')
          .map((e) => e.headers.ce_id),
      ),
    ).toEqual(new Set([cancelled.headers.ce_id]));
    // the next request starts a new port-out
    const next = await requestPortOut(gpsi);
    await until(`port-out ${next} asked`, async () => portOutEvents(gpsi).find((e) => e.value.portOutId === next && e.value.portOutStatus === 'VALIDATION_PENDING'), {
      timeoutMs: 20000,
      intervalMs: 50,
    });
  });

  it('balance updates racing the port-out are applied before its end (and closed with it) or refused "ported out", never lost', async () => {
    const gpsi = await activeNumber();
    const portOutId = await requestPortOut(gpsi);
    await portOutEvent(gpsi, 'VALIDATION_PENDING');
    const subtract = { subBalanceInstId: `${gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 1, unitType: 'Min' };
    const shown = (await balance('QueryBalances', { gpsi })).value.balances.flatMap((b: { subBalances: { subBalanceInstId: string; remainingBalance: number }[] }) => b.subBalances);
    const before = shown.find((b: { subBalanceInstId: string }) => b.subBalanceInstId === `${gpsi}-1`).remainingBalance as number;
    // the approval goes first; the simulator completes it within milliseconds while the updates keep coming
    const approval = answer(gpsi, portOutId, 'APPROVE');
    const replies: Reply[] = [];
    for (let i = 0; i < 30; i += 1) {
      replies.push(await balance('UpdateBalances', { gpsi, balances: [subtract] }));
    }
    expect((await approval).value.portOutStatus).toBe('APPROVED');
    const ended = await stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionPortedOut');
    const statuses = replies.map((r) => r.value.status);
    const applied = statuses.filter((s) => s === 'Success').length;
    for (const reply of replies) if (reply.value.status !== 'Success') expect(reply.value).toMatchObject({ status: 'NOT_FOUND', error: { problems: [{ reason: 'ported out' }] } });
    // one number's commands are applied in order: once refused, every later one is refused too
    expect(statuses).toEqual([...Array(applied).fill('Success'), ...Array(replies.length - applied).fill('NOT_FOUND')]);
    const closed = ended.value.changes.find((c: { subBalanceInstId: string }) => c.subBalanceInstId === `${gpsi}-1`);
    expect(closed.before.remainingBalance).toBe(before - applied);
  });
});
