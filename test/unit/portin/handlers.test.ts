import { ServiceError } from '../../../src/contract/errors';
import { NP_REQUEST_RECORDS, PORTIN_EVENT_RECORD } from '../../../src/domain/portin/records';
import { createCancelPortIn } from '../../../src/handlers/portin/cancel-port-in';
import { createCreatePortIn } from '../../../src/handlers/portin/create-port-in';
import { createPortInHandlers } from '../../../src/handlers/portin';
import { createQueryPortIn } from '../../../src/handlers/portin/query-port-in';
import { createUpdatePortIn } from '../../../src/handlers/portin/update-port-in';
import type { CommandContext } from '../../../src/contract/handlers';
import { payloadFingerprint } from '../../../src/domain/portin/ids';
import { checkCreatePortIn } from '../../../src/domain/portin/validate-commands';
import { orBadRequest } from '../../../src/domain/validation/problems';
import { T0, rawCreate, subscriptionFor } from '../../support/portin/fixtures';
import { context, portInKit, scopedContext } from '../../support/portin/handler-kit';

async function refusal(run: Promise<unknown>): Promise<ServiceError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

const GPSI = '19459986891';
const later = (ms: number) => new Date(T0.getTime() + ms);

function setup() {
  const kit = portInKit();
  const create = createCreatePortIn(kit.deps);
  const update = createUpdatePortIn(kit.deps);
  const cancel = createCancelPortIn(kit.deps);
  const query = createQueryPortIn(kit.deps);
  /** Moves the number's request to a status, as the NP side would have. */
  const force = (status: 'RESOLUTION_REQUIRED' | 'REJECTED' | 'COMPLETED', gpsi = GPSI) => {
    const request = kit.store.requests.get(gpsi)!;
    kit.store.requests.set(gpsi, { ...request, portStatus: status, reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect', portOrderId: 'PO-1' });
    kit.store.orders.set('PO-1', { gpsi, requestId: request.requestId });
  };
  return { ...kit, create, update, cancel, query, force };
}

describe('CreatePortIn handler', () => {
  it('creates the request OPEN, the pending subscription, and publishes the OPEN event and the NP submit', async () => {
    const { create, store, subscriptions } = setup();
    const ctx = context();
    const result = await create(rawCreate(), ctx);
    expect(result.reply).toEqual({
      status: 'Success',
      partnerTransactionId: 'PTX-1',
      gpsi: GPSI,
      subscriberId: 'SUB-1',
      portStatus: 'OPEN',
      portOrderVersion: '1',
      portOriginalSubmissionDate: T0.toISOString(),
      desiredDueDate: '2026-03-05T10:00:00.000Z',
    });
    expect(result.messages!.map((m) => m.recordName)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.submit]);
    expect(result.messages![0]).toMatchObject({ topic: 'portinEvents', key: GPSI, value: { portStatus: 'OPEN', correlationId: ctx.correlationId, wholesaleCustomerId: 'WC-1' } });
    // the NP side gets the secrets in clear; the stored request keeps only masks besides them
    expect(result.messages![1]).toMatchObject({ topic: 'npRequests', key: GPSI, value: { portOrderVersion: 1, portInfo: { pwdPin: '4321', accountNo: '123456789012' } } });
    expect(store.requests.get(GPSI)!.portInfo).toMatchObject({ pwdPin: '****', accountNo: '****9012' });
    expect(subscriptions.subscriptions.get(GPSI)).toMatchObject({ status: 'PENDING', wholesalePlanId: 'WP-BASIC', bucketRefIds: ['2000001'], billCycleStartDay: 5 });
  });

  it('a redelivery once its earliest due date has passed answers its recorded outcome; a new command with that date is a BAD_REQUEST', async () => {
    const { create, store } = setup();
    const earliest = '2026-03-05T10:00:00.000Z'; // one business day from T0
    const ctx = context();
    const first = await create(rawCreate({ desiredDueDate: earliest }), ctx);
    const redelivered = await create(rawCreate({ desiredDueDate: earliest }), { ...ctx, now: later(3600_000) });
    expect(redelivered).toEqual({ ...first, replayed: true });
    const fresh = await refusal(create(rawCreate({ desiredDueDate: earliest, gpsi: '19459986892', partnerTransactionId: 'PTX-2' }), context({ now: later(3600_000) })));
    expect(fresh).toMatchObject({ code: 'BAD_REQUEST', problems: [{ path: 'desiredDueDate', reason: 'must be no earlier than 2026-03-05T11:00:00.000Z (1 business day(s) from now)' }] });
    expect(store.requests.has('19459986892')).toBe(false);
    // given by the pipeline (the due date refused before the handler ran), the refusal waits for the record too
    const refuseNew = { code: 'BAD_REQUEST' as const, message: 'The command is invalid: 1 problem(s)', problems: fresh.problems };
    expect(await create(rawCreate({ desiredDueDate: earliest }), { ...ctx, now: later(3600_000), refuseNew })).toEqual({ ...first, replayed: true });
    expect(await refusal(create(rawCreate({ desiredDueDate: earliest }), context({ now: later(3600_000), refuseNew })))).toMatchObject(refuseNew);
  });

  it('defaults the bill cycle start day to the submission day', async () => {
    const { create, subscriptions } = setup();
    await create(rawCreate({ billCycleStartDay: null }), context());
    expect(subscriptions.subscriptions.get(GPSI)!.billCycleStartDay).toBe(4);
  });

  it('answers a retry with the same payload with the first reply and publishes nothing again', async () => {
    const { create } = setup();
    const first = await create(rawCreate(), context());
    const retry = await create(rawCreate(), context({ now: later(60_000) }));
    expect(retry).toEqual({ reply: first.reply });
  });

  it('a due-date-only update of a finished request is a CONFLICT naming where it is accepted', async () => {
    const { create, update, force } = setup();
    await create(rawCreate(), context());
    force('COMPLETED');
    expect(await refusal(update({ partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: {}, desiredDueDate: '2026-03-10T10:00:00Z' }, context()))).toMatchObject({
      code: 'CONFLICT',
      message: `port-in request PTX-1 for ${GPSI} is COMPLETED: UpdatePortIn changing only the due date is accepted in OPEN or DELAYED or CONFIRMED or RESOLUTION_REQUIRED or REJECTED only`,
    });
  });

  it('answers a retry whose request was cancelled since with a CONFLICT naming it, not the first reply', async () => {
    const { create, cancel, force } = setup();
    await create(rawCreate(), context());
    force('REJECTED');
    await cancel({ gpsi: GPSI }, context());
    expect(await refusal(create(rawCreate(), context({ now: later(60_000) })))).toMatchObject({
      code: 'CONFLICT',
      message: `partnerTransactionId PTX-1 names the port-in request for ${GPSI}, CANCELLED (CP Cancelled by the partner): a new port-in needs a new partnerTransactionId`,
      problems: [{ path: 'partnerTransactionId', reason: `names a CANCELLED port-in request (${GPSI})` }],
    });
  });

  it('records its outcome without the secrets, and a replay takes them from the request while it is open at that version', async () => {
    const { create, update, store, force } = setup();
    const ctx = context();
    const first = await create(rawCreate(), ctx);
    const [recorded] = [...store.outcomes.values()];
    expect(JSON.stringify(recorded)).not.toMatch(/4321|123456789012/);
    expect(recorded.messages[1]).toMatchObject({ secrets: 'withheld', value: { portInfo: { pwdPin: null, accountNo: null } } });
    expect(await create(rawCreate(), { ...ctx, now: later(5000) })).toEqual({ ...first, replayed: true });
    // once a supplement moved the request on, the first submit is moot: a replay no longer sends it
    force('RESOLUTION_REQUIRED');
    await update({ partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: { pwdPin: '9999' } }, context());
    expect((await create(rawCreate(), { ...ctx, now: later(9000) })).messages!.map((m) => m.recordName)).toEqual([PORTIN_EVENT_RECORD]);
  });

  it('replays a redelivered command (same commandId) with the same reply and the same messages', async () => {
    const { create, store } = setup();
    const ctx = context();
    const first = await create(rawCreate(), ctx);
    const again = await create(rawCreate(), { ...ctx, now: later(5000) });
    expect(again).toEqual({ ...first, replayed: true });
    expect(store.writes).toBe(1);
  });

  it('refuses a partnerTransactionId reused with another payload', async () => {
    const { create } = setup();
    await create(rawCreate(), context());
    const error = await refusal(create(rawCreate({ subscriberId: 'SUB-2' }), context()));
    expect(error).toMatchObject({ code: 'CONFLICT', problems: [{ path: 'partnerTransactionId', reason: 'is already used by another port-in request' }] });
  });

  it('keeps partnerTransactionIds apart per wholesale customer', async () => {
    const { create } = setup();
    await create(rawCreate(), context());
    const other = await create(rawCreate({ gpsi: '19459986892' }), context({ wholesaleCustomerId: 'WC-2' }));
    expect(other.reply).toMatchObject({ partnerTransactionId: 'PTX-1', gpsi: '19459986892' });
  });

  it('answers busy while another command holds the claim, and takes an abandoned claim over after the lease', async () => {
    const { create, store } = setup();
    const payload = rawCreate();
    // an earlier command claimed the transaction and died before writing anything
    const first = context();
    const claim = await store.claimTransaction('WC-1', 'PTX-1', {
      commandId: first.commandId,
      payloadHash: payloadFingerprint(orBadRequest(checkCreatePortIn(payload))),
      gpsi: GPSI,
      requestId: 'r',
      now: T0,
    });
    expect(claim.kind).toBe('claimed');
    expect(await refusal(create(payload, context({ now: later(1000) })))).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('retry later') });
    const taken = await create(payload, context({ now: later(31_000) }));
    expect(taken.reply).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
    expect(store.requests.get(GPSI)!.requestId).toBe('r');
  });

  it('a takeover after the first command wrote the request and its outcome was forgotten answers that reply', async () => {
    const { create, store } = setup();
    const first = await create(rawCreate(), context());
    // the first command died before settling, and its recorded outcome has expired since
    Object.assign(store.transactions.get('WC-1|PTX-1')!, { state: 'claimed', reply: undefined });
    store.outcomes.clear();
    const taken = await create(rawCreate(), context({ now: later(31_000) }));
    expect(taken).toEqual({ reply: first.reply, messages: [] });
    expect(store.writes).toBe(1);
  });

  it('refuses a second port-in for a number in progress, naming the request, and gives the claim back', async () => {
    const { create, store } = setup();
    await create(rawCreate(), context());
    const error = await refusal(create(rawCreate({ partnerTransactionId: 'PTX-2' }), context()));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('19459986891 already has a port-in in progress: request PTX-1 is OPEN');
    expect(error.problems).toEqual([{ path: 'gpsi', reason: '8P PortInInProgress: request PTX-1 (OPEN)' }]);
    expect(store.transactions.has('WC-1|PTX-2')).toBe(false);
    const foreign = await refusal(create(rawCreate({ partnerTransactionId: 'PTX-3' }), context({ wholesaleCustomerId: 'WC-2' })));
    expect(foreign).toMatchObject({ code: 'CONFLICT', message: '19459986891 already has a port-in in progress', problems: [{ path: 'gpsi', reason: '8P PortInInProgress' }] });
  });

  it('carries the eligibility reason: an active number (8A) and a non-portable range', async () => {
    const { create, subscriptions, store } = setup();
    subscriptions.subscriptions.set(GPSI, { ...subscriptionFor(), status: 'ACTIVE' });
    expect(await refusal(create(rawCreate(), context()))).toMatchObject({ code: 'CONFLICT', problems: [{ path: 'gpsi', reason: '8A NumberAlreadyActive' }] });
    expect(await refusal(create(rawCreate({ gpsi: '19001234567', partnerTransactionId: 'PTX-9' }), context()))).toMatchObject({
      code: 'CONFLICT',
      problems: [{ path: 'gpsi', reason: '8B PremiumRateNumber' }],
    });
    expect(store.transactions.size).toBe(0);
  });

  it('refuses plans and buckets the catalog does not hold, and primary buckets in bucketRefId', async () => {
    const { create } = setup();
    const error = await refusal(create(rawCreate({ wholesalePlanId: 'WP-NONE', bucketRefId: ['1000002', 'X-1', '2000002'] }), context()));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.problems).toEqual([
      { path: 'wholesalePlanId', reason: 'names no wholesale plan of the catalog (WP-NONE)' },
      { path: 'bucketRefId[0]', reason: '1000002 is a PRIMARY bucket: only add-on buckets may be listed, the plan brings its primary bucket' },
      { path: 'bucketRefId[1]', reason: 'names no bucket of the catalog (X-1)' },
    ]);
  });

  it('starts a new request over a cancelled one; the old one stays queryable by its partnerTransactionId', async () => {
    const { create, cancel, query, force } = setup();
    await create(rawCreate(), context());
    force('REJECTED');
    await cancel({ gpsi: GPSI }, context());
    const second = await create(rawCreate({ partnerTransactionId: 'PTX-2' }), context({ now: later(60_000) }));
    expect(second.reply).toMatchObject({ partnerTransactionId: 'PTX-2', portStatus: 'OPEN', portOrderVersion: '1' });
    expect((await query({ gpsi: GPSI }, context())).reply).toMatchObject({ partnerTransactionId: 'PTX-2', portStatus: 'OPEN' });
    expect((await query({ partnerTransactionId: 'PTX-1' }, context())).reply).toMatchObject({ partnerTransactionId: 'PTX-1', portStatus: 'CANCELLED' });
  });
});

describe('UpdatePortIn handler', () => {
  const updateOf = (info: object, overrides: object = {}) => ({ partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: info, ...overrides });

  it.each(['RESOLUTION_REQUIRED', 'REJECTED'] as const)('sends a supplement from %s: OPEN, version 2, merged info with the secrets in clear', async (status) => {
    const { create, update, force, store } = setup();
    await create(rawCreate(), context());
    force(status);
    const ctx = context({ now: later(3600_000) });
    const result = await update(updateOf({ pwdPin: '9999', contact: { businessName: 'ACME' } }), ctx);
    expect(result.reply).toEqual({ status: 'Success', partnerTransactionId: 'PTX-1', gpsi: GPSI, portStatus: 'OPEN', portOrderVersion: '2', desiredDueDate: '2026-03-05T11:00:00.000Z' });
    const [event, supplement] = result.messages!;
    expect(event.value).toMatchObject({ portStatus: 'OPEN', previousPortStatus: status, portOrderVersion: '2', reasonCode: null, correlationId: ctx.correlationId });
    expect(supplement).toMatchObject({ recordName: NP_REQUEST_RECORDS.supplement, value: { portOrderId: 'PO-1', portOrderVersion: 2 } });
    expect(supplement.value.portInfo).toMatchObject({ pwdPin: '9999', accountNo: '123456789012', contact: { businessName: 'ACME', firstName: 'Ada', lastName: 'Lovelace' } });
    expect(store.requests.get(GPSI)!.portInfo.pwdPin).toBe('****');
  });

  it('a redelivered due-date update replays once the date is no longer allowed; planned afresh, it is a BAD_REQUEST', async () => {
    const { create, update } = setup();
    await create(rawCreate(), context());
    const dueDateOnly = updateOf({}, { desiredDueDate: '2026-03-05T10:30:00.000Z' });
    const ctx = context();
    const first = await update(dueDateOnly, ctx);
    expect(first.reply).toMatchObject({ portOrderVersion: '2', desiredDueDate: '2026-03-05T10:30:00.000Z' });
    expect(await update(dueDateOnly, { ...ctx, now: later(3600_000) })).toEqual({ ...first, replayed: true });
    expect(await refusal(update(dueDateOnly, context({ now: later(3600_000) })))).toMatchObject({ code: 'BAD_REQUEST', problems: [{ path: 'desiredDueDate' }] });
  });

  it('replays a redelivered update instead of bumping the version twice', async () => {
    const { create, update, force, store } = setup();
    await create(rawCreate(), context());
    force('REJECTED');
    const ctx = context();
    const first = await update(updateOf({ pwdPin: '9999' }), ctx);
    const again = await update(updateOf({ pwdPin: '9999' }), ctx);
    expect(again).toEqual({ ...first, replayed: true });
    expect(store.requests.get(GPSI)!.portOrderVersion).toBe(2);
  });

  it('is a CONFLICT naming the status outside RESOLUTION_REQUIRED and REJECTED', async () => {
    const { create, update } = setup();
    await create(rawCreate(), context());
    const error = await refusal(update(updateOf({ pwdPin: '9999' }), context()));
    expect(error).toMatchObject({ code: 'CONFLICT', problems: [{ path: 'portStatus', reason: 'is OPEN' }] });
    expect(error.message).toBe('port-in request PTX-1 for 19459986891 is OPEN: UpdatePortIn is accepted in RESOLUTION_REQUIRED or REJECTED only');
  });

  it('finds nothing for another partnerTransactionId, another number or another customer', async () => {
    const { create, update, force } = setup();
    await create(rawCreate(), context());
    force('REJECTED');
    for (const [command, customer] of [
      [updateOf({ pwdPin: '1' }, { partnerTransactionId: 'PTX-2' }), 'WC-1'],
      [updateOf({ pwdPin: '1' }, { gpsi: '19459986899' }), 'WC-1'],
      [updateOf({ pwdPin: '1' }), 'WC-2'],
    ] as const) {
      expect((await refusal(update(command, context({ wholesaleCustomerId: customer })))).code).toBe('NOT_FOUND');
    }
  });
});

describe('CancelPortIn handler', () => {
  it('cancels by partnerTransactionId alone: the NP side is told and the pending subscription cancelled', async () => {
    const { create, cancel, force, subscriptions, store } = setup();
    await create(rawCreate(), context());
    force('RESOLUTION_REQUIRED');
    const result = await cancel({ partnerTransactionId: 'PTX-1' }, context());
    expect(result.reply).toEqual({ status: 'Success', partnerTransactionId: 'PTX-1', gpsi: GPSI, portStatus: 'CANCELLED' });
    expect(result.messages!.map((m) => m.recordName)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.cancel, 'wholesale.balance.v1.SubscriptionCancelled']);
    expect(result.messages![0].value).toMatchObject({ portStatus: 'CANCELLED', reasonCode: 'CP' });
    expect(subscriptions.subscriptions.get(GPSI)!.status).toBe('CANCELLED');
    expect(store.requests.get(GPSI)!.secrets).toEqual({});
  });

  it('needs both keys to name the same request, and the caller to own it', async () => {
    const { create, cancel, force } = setup();
    await create(rawCreate(), context());
    force('REJECTED');
    expect((await refusal(cancel({ partnerTransactionId: 'PTX-2', gpsi: GPSI }, context()))).code).toBe('NOT_FOUND');
    expect((await refusal(cancel({ partnerTransactionId: 'PTX-1', gpsi: '19459986899' }, context()))).code).toBe('NOT_FOUND');
    expect((await refusal(cancel({ gpsi: GPSI }, context({ wholesaleCustomerId: undefined })))).code).toBe('NOT_FOUND');
    expect((await cancel({ partnerTransactionId: 'PTX-1', gpsi: GPSI }, context())).reply).toMatchObject({ portStatus: 'CANCELLED' });
  });

  it('asks the NP side for an OPEN request: CANCEL_PENDING, and a second cancel is a CONFLICT naming that status', async () => {
    const { create, cancel } = setup();
    await create(rawCreate(), context());
    const asked = await cancel({ gpsi: GPSI }, context());
    expect(asked.reply).toMatchObject({ portStatus: 'CANCEL_PENDING' });
    expect(asked.messages!.map((m) => m.recordName)).toEqual(['wholesale.portin.v1.PortInActivationEvent', 'np.portin.v1.CancelPortRequest']);
    expect(await refusal(cancel({ gpsi: GPSI }, context()))).toMatchObject({ code: 'CONFLICT', problems: [{ path: 'portStatus', reason: 'is CANCEL_PENDING' }] });
  });
});

describe('QueryPortIn handler', () => {
  it('answers the record of 2.8 by any key, with pwdPin and accountNo masked', async () => {
    const { create, query, force } = setup();
    await create(rawCreate(), context());
    force('RESOLUTION_REQUIRED');
    const byGpsi = (await query({ gpsi: GPSI }, context())).reply;
    expect(byGpsi).toEqual({
      status: 'Success',
      gpsi: GPSI,
      partnerTransactionId: 'PTX-1',
      portOrderId: 'PO-1',
      portOrderVersion: '1',
      subscriberId: 'SUB-1',
      portStatus: 'RESOLUTION_REQUIRED',
      reasonCode: '8C',
      reasonDescription: 'Password/PIN required or incorrect',
      remarks: null,
      desiredDueDate: '2026-03-05T10:00:00.000Z',
      confirmedDueDate: null,
      portDirection: 'PORT_IN',
      portLastUpdateDate: T0.toISOString(),
      portOriginalSubmissionDate: T0.toISOString(),
      portInfo: {
        authorizationName: 'Ada Lovelace',
        accountNo: '****9012',
        pwdPin: '****',
        termsCondition: 'ACCEPTED',
        contact: { isBusinessType: false, businessName: null, namePrefix: null, firstName: 'Ada', middleName: null, lastName: 'Lovelace', nameSuffix: null, additionalTitle: null },
        location: { portAddress: { addressLine1: '1 Main St', addressLine2: null, city: 'Springfield', state: 'IL', zip: '62701' }, activationAddress: null },
      },
      newNetworkServiceProvider: 'NNSP-TEST',
      oldNetworkServiceProvider: null,
      oldLocalServiceProvider: null,
      newLocalServiceProvider: 'NLSP-TEST',
    });
    expect((await query({ portOrderId: 'PO-1' }, context())).reply).toEqual(byGpsi);
    expect((await query({ partnerTransactionId: 'PTX-1', portOrderId: 'PO-1', gpsi: GPSI }, context())).reply).toEqual(byGpsi);
  });

  it('finds nothing for another customer, or keys naming different requests', async () => {
    const { create, query } = setup();
    await create(rawCreate(), context());
    expect((await refusal(query({ gpsi: GPSI }, context({ wholesaleCustomerId: 'WC-2' })))).code).toBe('NOT_FOUND');
    expect((await refusal(query({ partnerTransactionId: 'PTX-1' }, context({ wholesaleCustomerId: 'WC-2' })))).code).toBe('NOT_FOUND');
    expect((await refusal(query({ partnerTransactionId: 'PTX-1', portOrderId: 'PO-9' }, context()))).code).toBe('NOT_FOUND');
    expect((await refusal(query({ gpsi: '19459986899' }, context()))).code).toBe('NOT_FOUND');
  });
});

describe('the customer hierarchy (context.canSee)', () => {
  // Partner P with brands B1 and B2; the request belongs to B1.
  const partner = () => scopedContext('P', ['P', 'B1', 'B2']);
  const brand1 = () => scopedContext('B1', ['B1']);
  const brand2 = () => scopedContext('B2', ['B2']);

  it("a partner's root node queries, updates and cancels its brand's request by every key", async () => {
    const { create, query, update, cancel, force } = setup();
    await create(rawCreate(), brand1());
    force('REJECTED');
    for (const keys of [{ gpsi: GPSI }, { partnerTransactionId: 'PTX-1' }, { portOrderId: 'PO-1' }, { partnerTransactionId: 'PTX-1', gpsi: GPSI }]) {
      expect((await query(keys, partner())).reply).toMatchObject({ partnerTransactionId: 'PTX-1', portStatus: 'REJECTED' });
    }
    expect((await update({ partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: { pwdPin: '9999' } }, partner())).reply).toMatchObject({ portOrderVersion: '2' });
    force('REJECTED');
    expect((await cancel({ partnerTransactionId: 'PTX-1' }, partner())).reply).toMatchObject({ portStatus: 'CANCELLED' });
  });

  it('a sibling brand finds nothing by any key and changes nothing', async () => {
    const { create, query, update, cancel, force, store } = setup();
    await create(rawCreate(), brand1());
    force('REJECTED');
    const before = store.requests.get(GPSI);
    for (const keys of [{ gpsi: GPSI }, { partnerTransactionId: 'PTX-1' }, { portOrderId: 'PO-1' }]) {
      expect((await refusal(query(keys, brand2()))).code).toBe('NOT_FOUND');
      expect((await refusal(cancel(keys, brand2()))).code).toBe(keys.portOrderId ? 'BAD_REQUEST' : 'NOT_FOUND');
    }
    expect((await refusal(update({ partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: { pwdPin: '9999' } }, brand2()))).code).toBe('NOT_FOUND');
    expect(store.requests.get(GPSI)).toEqual(before);
  });

  it('a number in progress is named to whoever can see its request, and anonymous to anyone else', async () => {
    const { create } = setup();
    await create(rawCreate(), brand1());
    const again = (ctx: CommandContext) => refusal(create(rawCreate({ partnerTransactionId: 'PTX-9' }), ctx));
    expect((await again(partner())).message).toContain('request PTX-1 is OPEN');
    const anonymous = await again(brand2());
    expect(anonymous.message).toBe('19459986891 already has a port-in in progress');
    expect(JSON.stringify(anonymous.problems)).not.toMatch(/OPEN|PTX-1|brand/);
  });
});

describe('createPortInHandlers', () => {
  it('registers the five port-in commands with their reply records, a validate of the form and a situation of the due date and catalog: together every problem', async () => {
    const { deps } = portInKit();
    const registrations = createPortInHandlers(deps);
    expect(registrations.map((r) => [r.commandRecord, r.replyRecord])).toEqual(
      ['CheckPortInEligibility', 'CreatePortIn', 'UpdatePortIn', 'CancelPortIn', 'QueryPortIn'].map((n) => [`wholesale.portin.v1.${n}`, `wholesale.portin.v1.${n}Reply`]),
    );
    const createReg = registrations.find((r) => r.commandRecord.endsWith('.CreatePortIn'))!;
    // the form; then the due date judged from the worker's clock (a Saturday) and the catalog, the situation
    const wrong = rawCreate({ gpsi: null, wholesalePlanId: 'WP-NONE', bucketRefId: ['1000001', ''], desiredDueDate: '2026-03-07T10:00:00Z' });
    expect(createReg.validate!(wrong, T0)).toEqual([
      { path: 'bucketRefId[1]', reason: 'must be at least 1 characters' },
      { path: 'gpsi', reason: 'is required' },
    ]);
    expect(createReg.situation!(wrong, T0)).toEqual([
      { path: 'desiredDueDate', reason: 'must fall on a business day (Monday to Friday, UTC)' },
      { path: 'wholesalePlanId', reason: 'names no wholesale plan of the catalog (WP-NONE)' },
      { path: 'bucketRefId[0]', reason: '1000001 is a PRIMARY bucket: only add-on buckets may be listed, the plan brings its primary bucket' },
    ]);
    expect([createReg.validate!(rawCreate(), T0), createReg.situation!(rawCreate(), T0)]).toEqual([[], []]);
    const tooEarly = rawCreate({ desiredDueDate: '2026-03-05T09:00:00Z' });
    expect([createReg.validate!(tooEarly, T0), createReg.situation!(tooEarly, T0)]).toEqual([
      [],
      [{ path: 'desiredDueDate', reason: 'must be no earlier than 2026-03-05T10:00:00.000Z (1 business day(s) from now)' }],
    ]);
    const updateReg = registrations.find((r) => r.commandRecord.endsWith('.UpdatePortIn'))!;
    const malformed = { partnerTransactionId: 'PTX-1', gpsi: GPSI, updatePortInfo: {}, desiredDueDate: 'next friday' };
    expect([updateReg.validate!(malformed, T0), updateReg.situation!(malformed, T0)]).toEqual([
      [{ path: 'desiredDueDate', reason: 'must be an ISO 8601 date-time with a zone, e.g. 2026-03-06T15:00:00Z' }],
      [],
    ]);
    expect(updateReg.situation!({ ...malformed, desiredDueDate: '2026-03-05T09:00:00Z' }, T0)).toHaveLength(1);
  });

  it('eligibility rejects a number with a port-in in progress with 8P', async () => {
    const { deps } = portInKit();
    const handlers = new Map(createPortInHandlers(deps).map((r) => [r.commandRecord, r.handle]));
    const run = (name: string, value: object, ctx: CommandContext = context()) => handlers.get(`wholesale.portin.v1.${name}`)!(value, ctx);
    expect((await run('CheckPortInEligibility', { gpsi: GPSI })).reply).toMatchObject({ eligibilityStatus: 'Eligible' });
    await run('CreatePortIn', rawCreate());
    expect((await run('CheckPortInEligibility', { gpsi: GPSI })).reply).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8P', reasonDesc: 'PortInInProgress' });
  });
});
