import { randomUUID } from 'node:crypto';
import { createCommand, gpsiEndingIn } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';
import type { Reply } from '../support/harness';
import { until } from '../support/until';
import { request, startTestGateway } from '../support/gateway';

/**
 * Port orders over the real stack (issue 48): one CreatePortOrder of many numbers, each number its own
 * port-in through the CreatePortIn path, played by the NP simulator (time-scaled) to its end; the order's
 * status derived from its numbers; a retry under the order id; one number cancelled, then the rest.
 */
const { partnerTransactionId: _pti, gpsi: _gpsi, ...shared } = createCommand('10000000001');
void _pti;
void _gpsi;

const orderOf = (orderId: string, numbers: string[]) => ({ ...shared, orderId, numbers: numbers.map((gpsi) => ({ gpsi })) });
const newOrderId = () => `ORD-${randomUUID().slice(0, 12)}`;
/** `count` numbers the simulator completes (endings 01 to 12), then 10 it rejects (ending 13). */
const mixedNumbers = (count: number) => [
  ...Array.from({ length: count - 10 }, (_, i) => gpsiEndingIn(String((i % 12) + 1).padStart(2, '0'))),
  ...Array.from({ length: 10 }, () => gpsiEndingIn('13')),
];

describe('port orders (real stack)', () => {
  const stack = journeyWithNpSide();
  const sendOrder = (operation: string, value: Record<string, unknown>, correlationId?: string) =>
    stack.j.requester.send('portinCommands', `wholesale.portin.v1.${operation}`, value, {
      headers: { wholesaleCustomerId: 'WC-1' },
      key: typeof value.orderId === 'string' ? value.orderId : 'eligibility',
      correlationId,
    });
  const orderEvents = (orderId: string): Reply[] => stack.j.events.filter((e) => e.recordName === 'wholesale.portin.v1.PortOrderEvent' && e.key === orderId);
  const queryUntil = (orderId: string, orderStatus: string, timeoutMs = 40000) =>
    until(
      `port order ${orderId} ${orderStatus}`,
      async () => {
        const reply = await sendOrder('QueryPortOrder', { orderId });
        return reply.value.orderStatus === orderStatus ? reply.value : undefined;
      },
      { timeoutMs, intervalMs: 250 },
    );

  it('200 numbers with mixed outcomes: refused ones named, each created one its own port-in to its end, the order PARTIALLY_COMPLETED; split by losing provider', async () => {
    // 5 numbers already being ported in (the simulator never answers a number ending in 00): refused by the order
    const busy = Array.from({ length: 5 }, () => gpsiEndingIn('00'));
    for (const gpsi of busy) expect((await stack.j.send('CreatePortIn', createCommand(gpsi))).value.status).toBe('Success');
    const numbers = [...mixedNumbers(195), ...busy];
    const completing = numbers.slice(0, 185);
    const rejected = numbers.slice(185, 195);
    const orderId = newOrderId();

    const started = Date.now();
    const created = await sendOrder('CreatePortOrder', orderOf(orderId, numbers));
    const createMs = Date.now() - started;
    expect(created.value).toMatchObject({ status: 'Success', orderId, orderStatus: 'IN_PROGRESS', numberCount: 200, createdCount: 195, refusedCount: 5 });
    const refused = created.value.numbers.filter((n: { errorCode: string | null }) => n.errorCode !== null);
    expect(refused.map((n: { gpsi: string }) => n.gpsi).sort()).toEqual([...busy].sort());
    for (const n of refused) expect(n).toMatchObject({ errorCode: 'CONFLICT', portStatus: null, reason: expect.stringContaining('8P') });
    expect(created.value.numbers[0]).toMatchObject({ gpsi: numbers[0], partnerTransactionId: `${orderId}-${numbers[0]}`, losingProvider: `ONSP-${numbers[0].slice(-4, -2)}`, portStatus: 'OPEN' });

    const split = await until('SPLIT event', async () => orderEvents(orderId).find((e) => e.value.eventType === 'SPLIT'));
    const providers = new Set(numbers.slice(0, 195).map((gpsi) => `ONSP-${gpsi.slice(-4, -2)}`));
    expect(split.value.groups.map((g: { losingProvider: string }) => g.losingProvider).sort()).toEqual([...providers].sort());
    expect(split.value.groups.flatMap((g: { numbers: string[] }) => g.numbers).sort()).toEqual(numbers.slice(0, 195).sort());
    expect(split.headers.ce_id).toBe(split.value.eventId);

    const settled = await queryUntil(orderId, 'PARTIALLY_COMPLETED');
    expect(settled.statusCounts).toEqual({ COMPLETED: 185, REJECTED: 10, REFUSED: 5 });
    // the order's own event once its last number settled, with the status then
    const settledEvent = await until('SETTLED event', async () => orderEvents(orderId).find((e) => e.value.eventType === 'SETTLED'));
    expect(settledEvent.value).toMatchObject({ orderStatus: 'PARTIALLY_COMPLETED', createdCount: 195, refusedCount: 5 });
    for (const gpsi of rejected) expect(settled.numbers.find((n: { gpsi: string }) => n.gpsi === gpsi).portStatus).toBe('REJECTED');
    // each number's own lifecycle events, as a single CreatePortIn's
    await stack.j.waitForStatus(completing[0], 'COMPLETED');
    console.log(`200-number CreatePortOrder answered in ${createMs} ms`);
  }, 90000);

  it('over HTTP through the gateway: POST /portorders, GET /portorders until PARTIALLY_COMPLETED', async () => {
    const gateway = await startTestGateway(stack.j.config);
    try {
      const orderId = newOrderId();
      const numbers = mixedNumbers(200);
      const headers = { wholesaleCustomerId: 'WC-1' };
      const created = await request(gateway.url, 'POST', '/portorders', { body: orderOf(orderId, numbers), headers });
      expect(created).toMatchObject({ status: 200, body: { status: 'Success', orderId, numberCount: 200, createdCount: 200, refusedCount: 0 } });
      const settled = await until(
        'PARTIALLY_COMPLETED over HTTP',
        async () => {
          const reply = await request(gateway.url, 'GET', '/portorders', { query: { orderId }, headers });
          return reply.body.orderStatus === 'PARTIALLY_COMPLETED' ? reply : undefined;
        },
        { timeoutMs: 40000, intervalMs: 250 },
      );
      expect(settled.body.statusCounts).toEqual({ COMPLETED: 190, REJECTED: 10 });
      const bad = await request(gateway.url, 'POST', '/portorders', { body: orderOf(orderId, ['123']), headers });
      expect(bad.status).toBe(400);
    } finally {
      await gateway.close();
    }
  }, 90000);

  it('retried under its order id it is one order: the same numbers answered, nothing submitted twice; another payload under that id is a CONFLICT', async () => {
    const numbers = Array.from({ length: 20 }, (_, i) => gpsiEndingIn(String((i % 12) + 1).padStart(2, '0')));
    const orderId = newOrderId();
    const first = await sendOrder('CreatePortOrder', orderOf(orderId, numbers));
    expect(first.value).toMatchObject({ status: 'Success', createdCount: 20 });
    const again = await sendOrder('CreatePortOrder', orderOf(orderId, numbers));
    expect(again.value.numbers.map((n: { gpsi: string; errorCode: string | null }) => [n.gpsi, n.errorCode])).toEqual(numbers.map((gpsi) => [gpsi, null]));
    expect(again.value).toMatchObject({ orderId, numberCount: 20, createdCount: 20, refusedCount: 0 });
    await stack.np.request(numbers[19]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const gpsi of numbers) expect(stack.np.seen.filter((r) => r.key === gpsi && r.recordName === 'np.portin.v1.SubmitPortRequest')).toHaveLength(1);
    expect(orderEvents(orderId).filter((e) => e.value.eventType === 'CREATED')).toHaveLength(1);

    const other = await sendOrder('CreatePortOrder', orderOf(orderId, numbers.slice(1)));
    expect(other.value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'orderId', reason: 'is already used by another port order' }] } });
  }, 60000);

  it('one number cancelled inside an order, the others left in progress; then the whole order: CANCELLED', async () => {
    const numbers = [gpsiEndingIn('00'), gpsiEndingIn('00'), gpsiEndingIn('00')];
    const orderId = newOrderId();
    expect((await sendOrder('CreatePortOrder', orderOf(orderId, numbers))).value.createdCount).toBe(3);
    const one = await sendOrder('CancelPortOrder', { orderId, gpsi: numbers[1] });
    expect(one.value).toMatchObject({ status: 'Success', orderId, numbers: [{ gpsi: numbers[1], portStatus: 'CANCEL_PENDING', errorCode: null }] });
    await until(`${numbers[1]} CANCELLED`, async () => {
      const reply = await sendOrder('QueryPortOrder', { orderId });
      return reply.value.statusCounts.CANCELLED === 1 ? reply.value : undefined;
    });
    const query = await sendOrder('QueryPortOrder', { orderId });
    expect(query.value).toMatchObject({ orderStatus: 'IN_PROGRESS', statusCounts: { OPEN: 2, CANCELLED: 1 } });
    expect(orderEvents(orderId).find((e) => e.value.eventType === 'CANCEL_REQUESTED')?.value).toMatchObject({ gpsi: numbers[1] });

    const all = await sendOrder('CancelPortOrder', { orderId });
    expect(all.value.numbers.map((n: { portStatus: string; errorCode: string | null }) => n.errorCode ?? n.portStatus)).toEqual(['CANCEL_PENDING', 'CONFLICT', 'CANCEL_PENDING']);
    await queryUntil(orderId, 'CANCELLED');
    const settledEvent = await until('SETTLED event', async () => orderEvents(orderId).find((e) => e.value.eventType === 'SETTLED'));
    expect(settledEvent.value.orderStatus).toBe('CANCELLED');
  }, 60000);

  it('every bad number named at once; eligibility of many numbers answered each', async () => {
    const good = gpsiEndingIn('01');
    const bad = await sendOrder('CreatePortOrder', orderOf('ORD-bad', [good, '123', good, 'x2345678901']));
    expect(bad.value.status).toBe('BAD_REQUEST');
    expect([...new Set(bad.value.error.problems.map((p: { path: string }) => p.path))].sort()).toEqual(['numbers[1].gpsi', 'numbers[2].gpsi', 'numbers[3].gpsi']);
    const eligibility = await sendOrder('CheckPortOrderEligibility', { numbers: [good, '123'] });
    expect(new Set(eligibility.value.error.problems.map((p: { path: string }) => p.path))).toEqual(new Set(['numbers[1]']));
    const active = gpsiEndingIn('01');
    await stack.j.send('CreatePortIn', createCommand(active));
    const answers = await sendOrder('CheckPortOrderEligibility', { numbers: [good, active] });
    expect(answers.value.numbers).toEqual([
      { gpsi: good, eligibilityStatus: 'Eligible', reasonCode: null, reasonDesc: null },
      expect.objectContaining({ gpsi: active, eligibilityStatus: 'Reject', reasonCode: '8P' }),
    ]);
  }, 30000);
});

/**
 * An order's last number settled without an NP response or an order command: cancelled by a single
 * CancelPortIn from RESOLUTION_REQUIRED, or by the abandonment timer. Both publish the order's SETTLED.
 * The partner leaves a RESOLUTION_REQUIRED number ABANDON_SECONDS before the timer cancels it.
 */
const ABANDON_SECONDS = 6;

describe('port orders settled by a single cancel or by the timer (real stack)', () => {
  const stack = journeyWithNpSide({ PORTIN_ABANDON_AFTER_SECONDS: String(ABANDON_SECONDS), PORTIN_EXPIRY_SWEEP_INTERVAL_MS: '200' });
  const sendOrder = (operation: string, value: Record<string, unknown>) =>
    stack.j.requester.send('portinCommands', `wholesale.portin.v1.${operation}`, value, { headers: { wholesaleCustomerId: 'WC-1' }, key: value.orderId as string });
  const settledEvents = (orderId: string): Reply[] => stack.j.events.filter((e) => e.recordName === 'wholesale.portin.v1.PortOrderEvent' && e.key === orderId && e.value.eventType === 'SETTLED');
  /** Two numbers whose port information the old provider refuses (pwdPin 0000): both RESOLUTION_REQUIRED. */
  async function orderAwaitingResolution(): Promise<{ orderId: string; numbers: string[] }> {
    const numbers = [gpsiEndingIn('01'), gpsiEndingIn('02')];
    const orderId = newOrderId();
    const order = { ...orderOf(orderId, numbers), portInfo: { ...shared.portInfo, pwdPin: '0000' } };
    expect((await sendOrder('CreatePortOrder', order)).value).toMatchObject({ status: 'Success', createdCount: 2 });
    await until(`order ${orderId} ACTION_REQUIRED`, async () => ((await sendOrder('QueryPortOrder', { orderId })).value.orderStatus === 'ACTION_REQUIRED' ? true : undefined), {
      timeoutMs: 20000,
      intervalMs: 100,
    });
    return { orderId, numbers };
  }

  it('each number cancelled by its own CancelPortIn: the last one settles the order, SETTLED CANCELLED once', async () => {
    const { orderId, numbers } = await orderAwaitingResolution();
    for (const gpsi of numbers) expect((await stack.j.send('CancelPortIn', { gpsi })).value).toMatchObject({ status: 'Success', portStatus: 'CANCELLED' });
    const settled = await until('SETTLED event', async () => settledEvents(orderId)[0], { timeoutMs: 10000, intervalMs: 50 });
    expect(settled.value).toMatchObject({ orderStatus: 'CANCELLED', createdCount: 2 });
    expect(settled.headers.ce_id).toBe(settled.value.eventId);
    expect((await sendOrder('QueryPortOrder', { orderId })).value.orderStatus).toBe('CANCELLED');
    // the timer finds both cancelled already: nothing more
    await new Promise((resolve) => setTimeout(resolve, (ABANDON_SECONDS + 1) * 1000));
    expect(settledEvents(orderId)).toHaveLength(1);
  }, 40000);

  it('left unresolved: the abandonment timer cancels both numbers and settles the order, SETTLED CANCELLED', async () => {
    const { orderId, numbers } = await orderAwaitingResolution();
    const settled = await until('SETTLED event', async () => settledEvents(orderId)[0], { timeoutMs: (ABANDON_SECONDS + 15) * 1000, intervalMs: 100 });
    expect(settled.value).toMatchObject({ orderStatus: 'CANCELLED', createdCount: 2 });
    for (const gpsi of numbers) expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ portStatus: 'CANCELLED', reasonCode: 'EX' });
    expect(settledEvents(orderId)).toHaveLength(1);
  }, 40000);
});
