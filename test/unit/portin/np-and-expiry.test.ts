import { RetriableError, ServiceError } from '../../../src/contract/errors';
import { MAX_REMARKS, parseNpResponse } from '../../../src/domain/portin/np-response';
import { NP_REQUEST_RECORDS, NP_RESPONSE_RECORDS, PORTIN_EVENT_RECORD } from '../../../src/domain/portin/records';
import { createCancelPortIn } from '../../../src/handlers/portin/cancel-port-in';
import { createCreatePortIn } from '../../../src/handlers/portin/create-port-in';
import { createNpResponseProcessor } from '../../../src/handlers/portin/np-response-processor';
import type { OutgoingMessage } from '../../../src/contract/messages';
import { createExpirySweeper } from '../../../src/schedulers/portin-expiry';
import { T0, rawCreate } from '../../support/portin/fixtures';
import { context, portInKit, silentLog } from '../../support/portin/handler-kit';

const GPSI = '19459986891';
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = 24 * 3600 * 1000;

async function created() {
  const kit = portInKit();
  await createCreatePortIn(kit.deps)(rawCreate(), context());
  const requestId = kit.store.requests.get(GPSI)!.requestId;
  const process = createNpResponseProcessor(kit.deps);
  const respond = (trigger: keyof typeof NP_RESPONSE_RECORDS, fields: Record<string, unknown> = {}, when = at(1000)) =>
    process(
      {
        recordName: NP_RESPONSE_RECORDS[trigger],
        value: {
          responseId: `r-${trigger}-${(fields.portOrderVersion as number | undefined) ?? 1}`,
          requestId,
          gpsi: GPSI,
          portOrderId: 'PO-1',
          portOrderVersion: 1,
          sentAt: when.toISOString(),
          ...fields,
        },
      },
      { now: when, log: silentLog },
    );
  return { ...kit, requestId, respond };
}

const names = (messages: OutgoingMessage[]) => messages.map((m) => m.recordName);

describe('NP response processor', () => {
  it('records the order id (indexed first) without an event, then drives OPEN → CONFIRMED → COMPLETED', async () => {
    const { respond, store, subscriptions, requestId } = await created();
    expect(await respond('OrderIdAssigned', { oldNetworkServiceProvider: 'ONSP-9' })).toEqual([]);
    expect(store.orders.get('PO-1')).toEqual({ gpsi: GPSI, requestId });
    expect(store.requests.get(GPSI)).toMatchObject({ portOrderId: 'PO-1', oldNetworkServiceProvider: 'ONSP-9', portStatus: 'OPEN' });

    const confirmed = await respond('PortConfirmed', { dueDate: '2026-03-05T10:00:00.000Z' });
    expect(names(confirmed)).toEqual([PORTIN_EVENT_RECORD]);
    expect(confirmed[0].value).toMatchObject({ portStatus: 'CONFIRMED', portOrderId: 'PO-1', correlationId: store.requests.get(GPSI)!.correlationId });

    const completed = await respond('ActivationComplete', { activatedAt: '2026-03-05T10:00:00.000Z' }, at(DAY));
    expect(names(completed)).toEqual([PORTIN_EVENT_RECORD, 'wholesale.balance.v1.SubscriptionActivated']);
    expect(subscriptions.subscriptions.get(GPSI)!.status).toBe('ACTIVE');
    expect(store.requests.get(GPSI)!.secrets).toEqual({});
  });

  it('carries the correlation id of the command the NP side answers', async () => {
    const { respond, store } = await created();
    const [event] = await respond('PortDelayed', { reasonCode: '1N', reasonDescription: 'Due date and time cannot be met' });
    expect(event.value.correlationId).toBe(store.requests.get(GPSI)!.correlationId);
    expect(event.value).toMatchObject({ portStatus: 'DELAYED', reasonCode: '1N' });
  });

  it('replays a repeated response: the same messages with the same event ids, and one write', async () => {
    const { respond, store } = await created();
    const first = await respond('ResolutionRequired', { reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' });
    const writes = store.writes;
    const again = await respond('ResolutionRequired', { reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' }, at(5000));
    expect(again).toEqual(first);
    expect(store.writes).toBe(writes);
    expect(first[0].cloudEvent!.id).toBe(first[0].value.eventId);
  });

  it('ignores a response for an older version, and one for a number without a request', async () => {
    const { respond, store, deps } = await created();
    store.requests.set(GPSI, { ...store.requests.get(GPSI)!, portOrderVersion: 2 });
    expect(await respond('PortRejected', { reasonCode: '7A' })).toEqual([]);
    expect(store.requests.get(GPSI)!.portStatus).toBe('OPEN');
    const process = createNpResponseProcessor(deps);
    const none = await process(
      { recordName: NP_RESPONSE_RECORDS.PortConfirmed, value: { responseId: 'x', requestId: 'y', gpsi: '19999999999', portOrderVersion: 1, sentAt: 'now', dueDate: 'd' } },
      { now: T0, log: silentLog },
    );
    expect(none).toEqual([]);
  });

  it("reads the NP side's activatedAt and remarks: an unreadable time is left out (the clock is used), long remarks are cut", () => {
    const base = { responseId: 'r', requestId: 'q', gpsi: GPSI, portOrderVersion: 1, sentAt: 'now', portOrderId: 'PO-1' };
    const activation = (activatedAt: string) => parseNpResponse(NP_RESPONSE_RECORDS.ActivationComplete, { ...base, activatedAt });
    expect(activation('2026-03-05T10:00:00Z')).toMatchObject({ ok: true, response: { activatedAt: '2026-03-05T10:00:00.000Z' } });
    expect(activation('tomorrow')).toMatchObject({ ok: true, response: { activatedAt: undefined } });
    const resolution = parseNpResponse(NP_RESPONSE_RECORDS.ResolutionRequired, { ...base, reasonCode: '1P', remarks: 'x'.repeat(MAX_REMARKS + 50) });
    expect(resolution.ok && resolution.response.remarks).toHaveLength(MAX_REMARKS);
  });

  it('skips a malformed response instead of failing', async () => {
    const { deps } = portInKit();
    const process = createNpResponseProcessor(deps);
    expect(await process({ recordName: NP_RESPONSE_RECORDS.PortRejected, value: { gpsi: 'x' } }, { now: T0, log: silentLog })).toEqual([]);
    expect(await process({ recordName: 'np.portin.v1.Unknown', value: {} }, { now: T0, log: silentLog })).toEqual([]);
  });

  it.each([
    ['the plan left the catalog', new ServiceError('CONFLICT', 'Plan WP-BASIC of gpsi 19459986891 is not in the catalog')],
    ['Redis refusing the write (OOM)', Object.assign(new Error("OOM command not allowed when used memory > 'maxmemory'."), { name: 'ReplyError' })],
  ])('an activation failing between the port write and the activation (%s) holds the response until it is done', async (_why, failure) => {
    const { respond, store, subscriptions } = await created();
    await respond('PortConfirmed', { dueDate: '2026-03-05T10:00:00.000Z' });
    const activate = subscriptions.activate.bind(subscriptions);
    let failing = true;
    subscriptions.activate = async (...args) => {
      if (failing) throw failure;
      return activate(...args);
    };
    const complete = () => respond('ActivationComplete', { activatedAt: '2026-03-05T10:00:00.000Z' }, at(DAY));
    // the port's transition is written, the activation fails: the response must not count as done
    const attempt = complete();
    if (failure instanceof ServiceError) await expect(attempt).rejects.toBeInstanceOf(RetriableError);
    else await expect(attempt).rejects.toBe(failure); // classified (and retried) by the record processor
    expect(store.requests.get(GPSI)!.portStatus).toBe('COMPLETED');
    expect(subscriptions.subscriptions.get(GPSI)!.status).toBe('PENDING');
    expect(await complete().catch((e: unknown) => e)).toBeInstanceOf(Error); // still failing: still not done
    failing = false;
    // the retry replays the recorded transition and runs the activation: COMPLETED + ACTIVE, one activation
    const retried = await complete();
    expect(names(retried)).toEqual([PORTIN_EVENT_RECORD, 'wholesale.balance.v1.SubscriptionActivated']);
    expect(subscriptions.subscriptions.get(GPSI)!.status).toBe('ACTIVE');
    // a redelivery after that sends the same messages again (same ids), and activates nothing more
    const writes = store.writes;
    expect(await complete()).toEqual(retried);
    expect(store.writes).toBe(writes);
  });

  it('keeps its order id when the NP side names one already given to another request', async () => {
    const { respond, store } = await created();
    store.orders.set('PO-1', { gpsi: '19999999999', requestId: 'other' });
    expect(await respond('OrderIdAssigned')).toEqual([]);
    expect(store.requests.get(GPSI)!.portOrderId).toBeUndefined();
  });
});

/** The sweeper over a kit, on a clock the test sets; publishing fails while `failing` is set (Kafka away). */
function sweeping<K extends Awaited<ReturnType<typeof created>>>(kit: K) {
  const published: OutgoingMessage[][] = [];
  let now = at(1000);
  let failing = false;
  const sweeper = createExpirySweeper(kit.deps, {
    intervalMs: 10,
    leaseMs: 60_000,
    batchSize: 10,
    clock: () => now,
    log: silentLog,
    publish: async (messages) => {
      published.push(messages);
      if (failing) throw new Error('kafka away');
    },
  });
  return { ...kit, sweeper, published, setNow: (d: Date) => (now = d), setFailing: (f: boolean) => (failing = f) };
}

describe('abandonment: no request waits forever', () => {
  const due = (kit: Awaited<ReturnType<typeof created>>) => Date.parse(kit.store.requests.get(GPSI)!.desiredDueDate);

  it('an OPEN request the NP side never answers is abandoned 30 days after its desired due date (NA): NP cancel, subscription cancelled', async () => {
    const kit = sweeping(await created());
    kit.setNow(new Date(due(kit) + 30 * DAY - 1));
    expect(await kit.sweeper.sweepOnce()).toBe(0);
    kit.setNow(new Date(due(kit) + 30 * DAY));
    expect(await kit.sweeper.sweepOnce()).toBe(1);
    expect(kit.published.map(names)).toEqual([[PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.cancel, 'wholesale.balance.v1.SubscriptionCancelled']]);
    expect(kit.published[0][0].value).toMatchObject({ portStatus: 'CANCELLED', previousPortStatus: 'OPEN', reasonCode: 'NA' });
    expect(kit.subscriptions.subscriptions.get(GPSI)!.status).toBe('CANCELLED');
    expect(kit.store.requests.get(GPSI)!.secrets).toEqual({});
  });

  it('a CONFIRMED port never activated is abandoned at its confirmed due date plus the grace period (AO)', async () => {
    const kit = sweeping(await created());
    await kit.respond('PortConfirmed', { dueDate: at(3 * DAY).toISOString() });
    kit.setNow(at(5 * DAY - 1));
    expect(await kit.sweeper.sweepOnce()).toBe(0);
    kit.setNow(at(5 * DAY));
    expect(await kit.sweeper.sweepOnce()).toBe(1);
    expect(kit.published[0][0].value).toMatchObject({ portStatus: 'CANCELLED', previousPortStatus: 'CONFIRMED', reasonCode: 'AO' });
  });

  it('a deadline met after the request moved to a later one (its status changed meanwhile) waits for that one', async () => {
    const kit = sweeping(await created());
    await kit.respond('PortConfirmed', { dueDate: at(3 * DAY).toISOString() });
    const member = [...kit.store.schedule.keys()][0];
    kit.store.schedule.set(member, at(2 * DAY).getTime()); // as if the confirmation had not yet moved it
    kit.setNow(at(2 * DAY));
    expect(await kit.sweeper.sweepOnce()).toBe(0);
    expect([...kit.store.schedule]).toEqual([[member, at(5 * DAY).getTime()]]);
  });

  it('a cancel the NP side never answers ends the request as CANCELLED (CU), without asking again', async () => {
    const kit = sweeping(await created());
    await createCancelPortIn(kit.deps)({ gpsi: GPSI }, context({ now: at(DAY) }));
    expect(kit.store.requests.get(GPSI)).toMatchObject({ portStatus: 'CANCEL_PENDING', statusBeforeCancel: 'OPEN' });
    kit.setNow(at(4 * DAY));
    expect(await kit.sweeper.sweepOnce()).toBe(1);
    expect(kit.published.map(names)).toEqual([[PORTIN_EVENT_RECORD, 'wholesale.balance.v1.SubscriptionCancelled']]);
    expect(kit.published[0][0].value).toMatchObject({ portStatus: 'CANCELLED', previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CU' });
  });

  it("a refused cancel puts the request back where it was; a confirmed one ends it for the partner's reason", async () => {
    const kit = await created();
    await kit.respond('PortConfirmed', { dueDate: at(3 * DAY).toISOString() });
    await createCancelPortIn(kit.deps)({ gpsi: GPSI }, context({ now: at(DAY) }));
    const [refused] = await kit.respond('CancelRefused', { responseId: 'refusal-1', reasonCode: 'CR', reasonDescription: 'too late' }, at(DAY + 1000));
    expect(refused.value).toMatchObject({ portStatus: 'CONFIRMED', previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CR' });
    await createCancelPortIn(kit.deps)({ gpsi: GPSI }, context({ now: at(DAY + 2000) }));
    const done = await kit.respond('CancelConfirmed', { responseId: 'confirmed-2' }, at(DAY + 3000));
    expect(names(done)).toEqual([PORTIN_EVENT_RECORD, 'wholesale.balance.v1.SubscriptionCancelled']);
    expect(done[0].value).toMatchObject({ portStatus: 'CANCELLED', previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CP' });
  });
});

describe('expiry sweeper', () => {
  async function rejected() {
    const kit = await created();
    await kit.respond('PortRejected', { reasonCode: '7A', reasonDescription: 'Number not portable' }, at(1000));
    return sweeping(kit);
  }

  it('schedules the deadline 30 days after the request became REJECTED', async () => {
    const { store, requestId } = await rejected();
    expect([...store.schedule]).toEqual([[`${GPSI}|${requestId}|1`, at(1000).getTime() + 30 * DAY]]);
  });

  it('does nothing before the deadline; after it cancels as expired and publishes the event, the NP cancel and the billing event', async () => {
    const { sweeper, published, setNow, store, subscriptions } = await rejected();
    setNow(at(29 * DAY));
    expect(await sweeper.sweepOnce()).toBe(0);
    setNow(at(31 * DAY));
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(published.map(names)).toEqual([[PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.cancel, 'wholesale.balance.v1.SubscriptionCancelled']]);
    expect(published[0][0].value).toMatchObject({ portStatus: 'CANCELLED', reasonCode: 'EX', reasonDescription: 'expired', correlationId: null });
    expect(store.requests.get(GPSI)!.portStatus).toBe('CANCELLED');
    expect(subscriptions.subscriptions.get(GPSI)!.status).toBe('CANCELLED');
    expect(store.schedule.size).toBe(0);
    expect(await sweeper.sweepOnce()).toBe(0);
  });

  it('drops a deadline the request has moved on from (a supplement came in time)', async () => {
    const { sweeper, published, setNow, store } = await rejected();
    store.requests.set(GPSI, { ...store.requests.get(GPSI)!, portStatus: 'OPEN', portOrderVersion: 2 });
    setNow(at(31 * DAY));
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(published).toEqual([]);
    expect(store.schedule.size).toBe(0);
  });

  it('leaves a member whose publishing failed leased, and expires it again with the same event id after the lease', async () => {
    const { sweeper, published: seen, setNow, setFailing, store } = await rejected();
    setNow(at(31 * DAY));
    setFailing(true);
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(store.schedule.size).toBe(1);
    setFailing(false);
    expect(await sweeper.sweepOnce()).toBe(0); // still leased
    setNow(at(31 * DAY + 61_000));
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(seen[1][0].value.eventId).toBe(seen[0][0].value.eventId);
    expect(store.schedule.size).toBe(0);
  });

  it('runs on its timer until stopped', async () => {
    const { sweeper, published, setNow } = await rejected();
    setNow(at(31 * DAY));
    sweeper.start();
    const deadline = Date.now() + 2000;
    while (published.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await sweeper.stop();
    expect(published).toHaveLength(1);
  });
});
