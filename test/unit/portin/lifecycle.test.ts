import { EXPIRING_STATUSES, NP_TRIGGERS, PORT_STATUSES, PORT_TRIGGERS, TRANSITIONS, isInProgress, type PortStatus, type PortTrigger } from '../../../src/domain/portin/lifecycle';
import type { Cause } from '../../../src/domain/portin/messages';
import { PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS } from '../../../src/domain/portin/records';
import { STATUSES_WITH_DEADLINE } from '../../../src/domain/portin/expiry';
import { planCancel, planCreate, planExpiry, planNpResponse, planUpdate, type Plan } from '../../../src/domain/portin/transitions';
import { SETTINGS, T0, createCommand, npResponse, requestIn, subscriptionFor } from '../../support/portin/fixtures';

/**
 * The lifecycle of issue 3, written out here independently of the table, cell by cell: every status
 * against every command, every NP response and the expiry timer. Each cell is checked on the table and on
 * what the planner actually does.
 */
type Expected = 'conflict' | 'read' | 'ignore' | 'annotate' | 'resume' | 'revise' | PortStatus;
const conflict3 = { CreatePortIn: 'conflict', UpdatePortIn: 'conflict', UpdateDueDate: 'conflict', CancelPortIn: 'conflict' } as const;
const reads = { QueryPortIn: 'read', CheckPortInEligibility: 'read' } as const;
const noNp = {
  OrderIdAssigned: 'ignore',
  PortConfirmed: 'ignore',
  PortDelayed: 'ignore',
  ResolutionRequired: 'ignore',
  PortRejected: 'ignore',
  ActivationComplete: 'ignore',
  CancelConfirmed: 'ignore',
  CancelRefused: 'ignore',
} as const;
const awaitingPartner = {
  CreatePortIn: 'conflict',
  UpdatePortIn: 'OPEN',
  UpdateDueDate: 'OPEN',
  CancelPortIn: 'CANCELLED',
  ...reads,
  ...noNp,
  OrderIdAssigned: 'annotate',
  ActivationComplete: 'COMPLETED',
  Expire: 'CANCELLED',
} as const;
const awaitingNp = {
  ...conflict3,
  UpdateDueDate: 'OPEN',
  CancelPortIn: 'CANCEL_PENDING',
  ...reads,
  ...noNp,
  OrderIdAssigned: 'annotate',
  PortConfirmed: 'CONFIRMED',
  PortDelayed: 'DELAYED',
  ResolutionRequired: 'RESOLUTION_REQUIRED',
  PortRejected: 'REJECTED',
  ActivationComplete: 'COMPLETED',
  Expire: 'CANCELLED',
} as const;

const EXPECTED: Record<PortStatus, Record<PortTrigger, Expected>> = {
  OPEN: awaitingNp,
  DELAYED: { ...awaitingNp, PortDelayed: 'revise' },
  CONFIRMED: { ...awaitingNp, PortConfirmed: 'revise', PortDelayed: 'ignore' },
  RESOLUTION_REQUIRED: awaitingPartner,
  REJECTED: awaitingPartner,
  CANCEL_PENDING: { ...conflict3, ...reads, ...noNp, OrderIdAssigned: 'annotate', ActivationComplete: 'COMPLETED', CancelConfirmed: 'CANCELLED', CancelRefused: 'resume', Expire: 'CANCELLED' },
  COMPLETED: { ...conflict3, ...reads, ...noNp, Expire: 'ignore' },
  CANCELLED: { ...conflict3, CreatePortIn: 'OPEN', ...reads, ...noNp, Expire: 'ignore' },
};

const cause: Cause = { id: 'cause-1', at: new Date(T0.getTime() + 40 * 24 * 3600 * 1000), correlationId: 'corr-1' };
const ctx = { cause, settings: SETTINGS };

function planFor(status: PortStatus, trigger: PortTrigger): Plan | 'read' {
  // OrderIdAssigned only annotates a request that has no portOrderId yet; a request waiting for its cancel's answer came from CONFIRMED
  const current = requestIn(status, {
    ...(trigger === 'OrderIdAssigned' ? { portOrderId: undefined } : {}),
    ...(status === 'CANCEL_PENDING' ? { statusBeforeCancel: 'CONFIRMED' as const, reasonCode: 'CP' } : {}),
  });
  switch (trigger) {
    case 'CreatePortIn':
      return planCreate(
        current,
        createCommand({ partnerTransactionId: 'PTX-2' }),
        { requestId: 'req-2', wholesaleCustomerId: 'WC-1', payloadHash: 'h2', correlationId: 'corr-1', now: cause.at },
        subscriptionFor(),
        ctx,
      );
    case 'UpdatePortIn':
      return planUpdate(current, { partnerTransactionId: 'PTX-1', gpsi: current.gpsi, updatePortInfo: { pwdPin: '9999' } }, ctx);
    case 'UpdateDueDate':
      return planUpdate(current, { partnerTransactionId: 'PTX-1', gpsi: current.gpsi, updatePortInfo: {}, desiredDueDate: '2026-04-20T09:00:00.000Z' }, ctx);
    case 'CancelPortIn':
      return planCancel(current, ctx);
    case 'Expire':
      return planExpiry(current, { requestId: current.requestId, portOrderVersion: current.portOrderVersion }, ctx);
    case 'QueryPortIn':
    case 'CheckPortInEligibility':
      return 'read';
    case 'ActivationComplete':
    case 'CancelConfirmed':
    case 'CancelRefused':
    case 'OrderIdAssigned':
    case 'PortConfirmed':
    case 'PortDelayed':
    case 'PortRejected':
    case 'ResolutionRequired':
      return planNpResponse(current, npResponse(trigger), ctx);
  }
}

const cells = PORT_STATUSES.flatMap((status) => PORT_TRIGGERS.map((trigger) => [status, trigger, EXPECTED[status][trigger]] as const));

describe('port-in lifecycle table', () => {
  it('has a rule for every status and every trigger', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...PORT_STATUSES].sort());
    for (const status of PORT_STATUSES) expect(Object.keys(TRANSITIONS[status]).sort()).toEqual([...PORT_TRIGGERS].sort());
  });

  it.each(cells)('%s × %s → %s', (status, trigger, expected) => {
    const rule = TRANSITIONS[status][trigger];
    const plan = planFor(status, trigger);
    if (expected === 'read') {
      expect(rule.action).toBe('read');
      return;
    }
    if (plan === 'read') throw new Error('only queries read');
    if (expected === 'conflict') {
      expect(rule.action).toBe('conflict');
      expect(plan).toEqual({ kind: 'conflict', status });
      return;
    }
    if (expected === 'ignore') {
      expect(rule.action).toBe('ignore');
      expect(plan.kind).toBe('ignore');
      return;
    }
    if (plan.kind !== 'change') throw new Error(`expected a change, got ${JSON.stringify(plan)}`);
    const { next, messages } = plan.change;
    if (expected === 'annotate') {
      expect(rule.action).toBe('annotate');
      expect(next.portStatus).toBe(status);
      expect(next.portOrderId).toBe('PO-1');
      expect(messages).toEqual([]);
      return;
    }
    if (expected === 'revise') {
      // the status stays and so does its start; the news is published
      expect(rule.action).toBe('revise');
      expect(next.portStatus).toBe(status);
      expect(next.statusSince).toBe(requestIn(status).statusSince);
      expect(messages[0].value).toMatchObject({ portStatus: status, previousPortStatus: status });
      return;
    }
    if (expected === 'resume') {
      expect(rule.action).toBe('resume');
      expect(next.portStatus).toBe('CONFIRMED');
      expect(next.statusBeforeCancel).toBeUndefined();
      expect(messages[0].value).toMatchObject({ portStatus: 'CONFIRMED', previousPortStatus: 'CANCEL_PENDING' });
      return;
    }
    expect(next.portStatus).toBe(expected);
    expect(next.statusSince).toBe(cause.at.toISOString());
    expect(next.portLastUpdateDate).toBe(cause.at.toISOString());
    const event = messages[0];
    expect(event.recordName).toBe(PORTIN_EVENT_RECORD);
    expect(event.value).toMatchObject({ portStatus: expected, previousPortStatus: trigger === 'CreatePortIn' ? null : status });
  });
});

describe('effects of each move', () => {
  const change = (plan: Plan | 'read') => {
    if (plan === 'read' || plan.kind !== 'change') throw new Error(`expected a change, got ${JSON.stringify(plan)}`);
    return plan.change;
  };
  const recordNames = (plan: Plan | 'read') => change(plan).messages.map((m) => m.recordName);
  const followUpKinds = (plan: Plan | 'read') => change(plan).followUps.map((f) => f.kind);

  it.each(['RESOLUTION_REQUIRED', 'REJECTED'] as const)('UpdatePortIn from %s is a supplement: version + 1, NP supplement, reason cleared', (status) => {
    const plan = planFor(status, 'UpdatePortIn');
    const { next } = change(plan);
    expect(next.portOrderVersion).toBe(2);
    expect(next.reasonCode).toBeUndefined();
    expect(next.secrets.pwdPin).toBe('9999');
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.supplement]);
    expect(change(plan).messages[1].value).toMatchObject({ portOrderVersion: 2, portOrderId: 'PO-1' });
  });

  it.each(['OPEN', 'DELAYED', 'CONFIRMED', 'RESOLUTION_REQUIRED'] as const)(
    'a supplement changing only the due date from %s: version + 1, NP supplement with it, port information kept, confirmed date void',
    (status) => {
      const current = requestIn(status, { confirmedDueDate: '2026-03-05T10:00:00.000Z' });
      const plan = planUpdate(current, { partnerTransactionId: 'PTX-1', gpsi: current.gpsi, updatePortInfo: {}, desiredDueDate: '2026-04-20T09:00:00.000Z' }, ctx);
      expect(change(plan).next).toMatchObject({
        portStatus: 'OPEN',
        portOrderVersion: 2,
        desiredDueDate: '2026-04-20T09:00:00.000Z',
        confirmedDueDate: undefined,
        secrets: current.secrets,
        portInfo: current.portInfo,
      });
      expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.supplement]);
      expect(change(plan).messages[1].value).toMatchObject({ portOrderVersion: 2, desiredDueDate: '2026-04-20T09:00:00.000Z', portInfo: { pwdPin: '4321', accountNo: '123456789012' } });
    },
  );

  it('a full supplement takes the due date the partner asks for, else the earliest from the supplement', () => {
    const update = (desiredDueDate?: string) =>
      change(planUpdate(requestIn('REJECTED'), { partnerTransactionId: 'PTX-1', gpsi: '19459986891', updatePortInfo: { pwdPin: '1' }, ...(desiredDueDate ? { desiredDueDate } : {}) }, ctx)).next
        .desiredDueDate;
    expect(update('2026-04-20T09:00:00.000Z')).toBe('2026-04-20T09:00:00.000Z');
    expect(update()).toBe('2026-04-14T10:00:00.000Z'); // the supplement is on Monday 2026-04-13
  });

  it.each(['RESOLUTION_REQUIRED', 'REJECTED'] as const)('CancelPortIn from %s cancels at the NP side and the pending subscription, and forgets the secrets', (status) => {
    const plan = planFor(status, 'CancelPortIn');
    expect(change(plan).next).toMatchObject({ reasonCode: 'CP', secrets: {} });
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.cancel]);
    expect(followUpKinds(plan)).toEqual(['cancelSubscription']);
  });

  it.each([
    ['OPEN', 'NA', ['npCancel']],
    ['DELAYED', 'NA', ['npCancel']],
    ['CONFIRMED', 'AO', ['npCancel']],
    ['RESOLUTION_REQUIRED', 'EX', ['npCancel']],
    ['REJECTED', 'EX', ['npCancel']],
    ['CANCEL_PENDING', 'CU', []],
  ] as const)('Expire from %s cancels with reason %s and cancels the pending subscription', (status, reasonCode, np) => {
    const plan = planFor(status, 'Expire');
    expect(change(plan).next).toMatchObject({ portStatus: 'CANCELLED', reasonCode, secrets: {} });
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, ...np.map(() => NP_REQUEST_RECORDS.cancel)]);
    expect(followUpKinds(plan)).toEqual(['cancelSubscription']);
  });

  it('the expiring statuses are every status still waiting for someone, exactly those with a deadline', () => {
    expect(EXPIRING_STATUSES).toEqual(['OPEN', 'DELAYED', 'CONFIRMED', 'RESOLUTION_REQUIRED', 'REJECTED', 'CANCEL_PENDING']);
    expect([...STATUSES_WITH_DEADLINE].sort()).toEqual([...EXPIRING_STATUSES].sort());
    expect(EXPIRING_STATUSES.filter((s) => isInProgress(s))).toEqual(EXPIRING_STATUSES);
  });

  it.each(['OPEN', 'DELAYED', 'CONFIRMED'] as const)('CancelPortIn from %s asks the NP side and waits in CANCEL_PENDING, remembering where it was', (status) => {
    const plan = planFor(status, 'CancelPortIn');
    expect(change(plan).next).toMatchObject({ portStatus: 'CANCEL_PENDING', statusBeforeCancel: status, reasonCode: 'CP' });
    expect(change(plan).next.secrets).toEqual(requestIn(status).secrets);
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.cancel]);
    expect(change(plan).messages[1].value).toMatchObject({ reasonCode: 'CP', portOrderId: 'PO-1' });
    // waiting for the answer has its own deadline
    expect(followUpKinds(plan)).toEqual(['scheduleExpiry']);
  });

  it('CancelConfirmed ends the request for the reason its cancel was asked for: subscription cancelled, secrets forgotten', () => {
    const plan = planFor('CANCEL_PENDING', 'CancelConfirmed');
    expect(change(plan).next).toMatchObject({ portStatus: 'CANCELLED', reasonCode: 'CP', secrets: {} });
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD]);
    expect(followUpKinds(plan)).toEqual(['cancelSubscription']);
  });

  it("CancelRefused goes back where the request was, with the NP side's reason, and a new deadline", () => {
    const plan = planFor('CANCEL_PENDING', 'CancelRefused');
    expect(change(plan).next).toMatchObject({ portStatus: 'CONFIRMED', reasonCode: 'CR', statusSince: cause.at.toISOString() });
    expect(followUpKinds(plan)).toEqual(['scheduleExpiry']);
    expect(planCancel(requestIn('CANCEL_PENDING'), ctx)).toEqual({ kind: 'conflict', status: 'CANCEL_PENDING' });
    expect(planNpResponse(requestIn('CANCEL_PENDING'), npResponse('CancelRefused'), ctx)).toMatchObject({ kind: 'ignore', why: expect.stringContaining('no status to resume') });
  });

  it.each([
    ['OPEN', 'ResolutionRequired'],
    ['DELAYED', 'PortRejected'],
  ] as const)('%s × %s schedules the expiry 30 days on and keeps the reason', (status, trigger) => {
    const plan = planFor(status, trigger);
    expect(change(plan).next).toMatchObject({ reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' });
    expect(change(plan).followUps).toEqual([{ kind: 'scheduleExpiry', member: '19459986891|req-1|1', deadline: new Date(cause.at.getTime() + 30 * 24 * 3600 * 1000).toISOString() }]);
  });

  it("ActivationComplete activates the subscription at the NP side's activatedAt (never a time to come) and forgets the secrets", () => {
    const plan = planFor('CONFIRMED', 'ActivationComplete');
    expect(change(plan).next.secrets).toEqual({});
    expect(change(plan).followUps).toEqual([{ kind: 'activateSubscription', gpsi: '19459986891', at: cause.at.toISOString() }]);
    const activated = (activatedAt: string) => change(planNpResponse(requestIn('OPEN'), npResponse('ActivationComplete', { activatedAt }), ctx)).followUps[0];
    expect(activated('2026-04-01T08:00:00.000Z')).toMatchObject({ at: '2026-04-01T08:00:00.000Z' }); // hours before it was read
    expect(activated('2027-01-01T00:00:00.000Z')).toMatchObject({ at: cause.at.toISOString() });
  });

  it.each(['OPEN', 'CONFIRMED'] as const)('ResolutionRequired from %s keeps its reason and remarks, and voids a confirmed due date', (status) => {
    const plan = planNpResponse(requestIn(status, { confirmedDueDate: '2026-03-05T10:00:00.000Z' }), npResponse('ResolutionRequired', { reasonCode: '1P', remarks: 'name differs' }), ctx);
    expect(change(plan).next).toMatchObject({ portStatus: 'RESOLUTION_REQUIRED', reasonCode: '1P', remarks: 'name differs', confirmedDueDate: undefined });
    expect(change(plan).messages[0].value).toMatchObject({ remarks: 'name differs', previousPortStatus: status });
    // the remarks belong to that stay: the next move drops them
    const updated = planUpdate(change(plan).next, { partnerTransactionId: 'PTX-1', gpsi: '19459986891', updatePortInfo: { pwdPin: '1' } }, ctx);
    expect(change(updated).next.remarks).toBeUndefined();
  });

  it('a second PortDelayed with a new reason revises it; the same reason again changes nothing', () => {
    const delayed = requestIn('DELAYED', { reasonCode: '1N', reasonDescription: 'Due date and time cannot be met' });
    const revised = planNpResponse(delayed, npResponse('PortDelayed', { reasonCode: '6E', reasonDescription: "Due date can't be met" }), ctx);
    expect(change(revised).next).toMatchObject({ portStatus: 'DELAYED', reasonCode: '6E', statusSince: delayed.statusSince });
    expect(change(revised).followUps).toEqual([]);
    expect(planNpResponse(delayed, npResponse('PortDelayed', { reasonCode: '1N', reasonDescription: 'Due date and time cannot be met' }), ctx)).toMatchObject({ kind: 'ignore' });
  });

  it('PortConfirmed records the confirmed due date', () => {
    expect(change(planFor('OPEN', 'PortConfirmed')).next.confirmedDueDate).toBe('2026-03-05T10:00:00.000Z');
  });

  it('CreatePortIn over a CANCELLED request starts a new one: version 1, NP submit, pending subscription, a deadline', () => {
    const plan = planFor('CANCELLED', 'CreatePortIn');
    expect(change(plan).next).toMatchObject({ requestId: 'req-2', portOrderVersion: 1, partnerTransactionId: 'PTX-2' });
    expect(change(plan).next.portOrderId).toBeUndefined();
    expect(recordNames(plan)).toEqual([PORTIN_EVENT_RECORD, NP_REQUEST_RECORDS.submit]);
    expect(followUpKinds(plan)).toEqual(['createPendingSubscription', 'scheduleExpiry']);
    // no firm answer 30 days after the desired due date: abandoned
    const { next, followUps } = change(plan);
    expect(followUps[1]).toEqual({ kind: 'scheduleExpiry', member: '19459986891|req-2|1', deadline: new Date(Date.parse(next.desiredDueDate) + 30 * 24 * 3600 * 1000).toISOString() });
  });

  it('PortConfirmed schedules the abandonment at the confirmed due date plus the grace period (never before the confirmation itself)', () => {
    const confirmedAt = (at: Date) => change(planNpResponse(requestIn('OPEN'), npResponse('PortConfirmed'), { ...ctx, cause: { ...cause, at } })).followUps;
    const grace = 2 * 24 * 3600 * 1000;
    expect(confirmedAt(new Date(T0.getTime() + 3600_000))).toEqual([
      { kind: 'scheduleExpiry', member: '19459986891|req-1|1', deadline: new Date(Date.parse('2026-03-05T10:00:00.000Z') + grace).toISOString() },
    ]);
    // a confirmation read long after its due date (a backlog) still gets the whole grace period
    expect(confirmedAt(cause.at)[0]).toMatchObject({ deadline: new Date(cause.at.getTime() + grace).toISOString() });
  });

  it('CreatePortIn on a number with no request creates one', () => {
    const plan = planCreate(undefined, createCommand(), { requestId: 'req-9', wholesaleCustomerId: 'WC-1', payloadHash: 'h', correlationId: 'c', now: T0 }, subscriptionFor(), ctx);
    expect(change(plan).next).toMatchObject({ portStatus: 'OPEN', portOrderVersion: 1 });
  });

  it('CreatePortIn over a COMPLETED request is a conflict, unless the number ported out since: then it ports back in as on a free number', () => {
    const facts = { requestId: 'req-9', wholesaleCustomerId: 'WC-2', payloadHash: 'h', correlationId: 'c', now: cause.at };
    expect(planCreate(requestIn('COMPLETED'), createCommand(), facts, subscriptionFor(), ctx)).toEqual({ kind: 'conflict', status: 'COMPLETED' });
    const back = change(planCreate(requestIn('COMPLETED'), createCommand(), { ...facts, numberLeft: true }, subscriptionFor(), ctx));
    expect(back.next).toMatchObject({ requestId: 'req-9', portStatus: 'OPEN', portOrderVersion: 1, wholesaleCustomerId: 'WC-2' });
    expect(back.followUps.map((f) => f.kind)).toEqual(expect.arrayContaining(['createPendingSubscription']));
    // a port-in still in flight blocks it whatever the subscription says
    expect(planCreate(requestIn('OPEN'), createCommand(), { ...facts, numberLeft: true }, subscriptionFor(), ctx).kind).toBe('conflict');
  });
});

describe('NP responses apply only to the request and version they answer', () => {
  const LATE_FACTS = ['OrderIdAssigned', 'ActivationComplete'];
  it.each(PORT_STATUSES.flatMap((s) => NP_TRIGGERS.filter((t) => !LATE_FACTS.includes(t)).map((t) => [s, t] as const)))('%s × %s for an older version changes nothing', (status, trigger) => {
    const current = requestIn(status, { portOrderVersion: 2 });
    expect(planNpResponse(current, npResponse(trigger, { portOrderVersion: 1 }), ctx).kind).toBe('ignore');
  });

  it.each(PORT_STATUSES.flatMap((s) => NP_TRIGGERS.map((t) => [s, t] as const)))('%s × %s for a newer version changes nothing', (status, trigger) => {
    const current = requestIn(status, { portOrderId: undefined });
    expect(planNpResponse(current, npResponse(trigger, { portOrderVersion: 2 }), ctx).kind).toBe('ignore');
  });

  it.each(PORT_STATUSES)('%s: a late OrderIdAssigned (an older version) records the order id the request still lacks', (status) => {
    const plan = planNpResponse(
      requestIn(status, { portOrderVersion: 2, portOrderId: undefined }),
      npResponse('OrderIdAssigned', { portOrderVersion: 1, oldNetworkServiceProvider: 'ONSP-1' }),
      ctx,
    );
    if (TRANSITIONS[status].OrderIdAssigned.action !== 'annotate') return expect(plan.kind).toBe('ignore');
    expect(plan).toMatchObject({ kind: 'change', change: { next: { portStatus: status, portOrderVersion: 2, portOrderId: 'PO-1', oldNetworkServiceProvider: 'ONSP-1' }, messages: [] } });
  });

  it.each(PORT_STATUSES)('%s: a late ActivationComplete (an older version) completes a port in progress: the number is live', (status) => {
    const plan = planNpResponse(requestIn(status, { portOrderVersion: 2, statusBeforeCancel: 'OPEN' }), npResponse('ActivationComplete', { portOrderVersion: 1 }), ctx);
    if (!isInProgress(status)) return expect(plan.kind).toBe('ignore');
    expect(plan).toMatchObject({ kind: 'change', change: { next: { portStatus: 'COMPLETED', portOrderVersion: 2, secrets: {} } } });
  });

  it.each(NP_TRIGGERS)('%s for another request changes nothing', (trigger) => {
    expect(planNpResponse(requestIn('OPEN', { portOrderId: undefined }), npResponse(trigger, { requestId: 'other' }), ctx).kind).toBe('ignore');
  });

  it('a repeated OrderIdAssigned, or one naming another id, changes nothing', () => {
    expect(planNpResponse(requestIn('OPEN'), npResponse('OrderIdAssigned'), ctx)).toMatchObject({ kind: 'ignore', why: 'order id already recorded' });
    expect(planNpResponse(requestIn('OPEN'), npResponse('OrderIdAssigned', { portOrderId: 'PO-2' }), ctx).kind).toBe('ignore');
  });

  it('a repeated status response changes nothing once applied', () => {
    const first = planNpResponse(requestIn('OPEN'), npResponse('PortDelayed'), ctx);
    if (first.kind !== 'change') throw new Error('expected a change');
    expect(planNpResponse(first.change.next, npResponse('PortDelayed'), ctx).kind).toBe('ignore');
  });
});

describe('expiry timer', () => {
  it('does nothing before the deadline', () => {
    const early = { ...ctx, cause: { ...cause, at: new Date(T0.getTime() + 29 * 24 * 3600 * 1000) } };
    expect(planExpiry(requestIn('REJECTED'), { requestId: 'req-1', portOrderVersion: 1 }, early)).toMatchObject({ kind: 'ignore', why: 'not yet due' });
  });

  it('does nothing when the request moved on since it was scheduled', () => {
    expect(planExpiry(requestIn('REJECTED', { portOrderVersion: 2 }), { requestId: 'req-1', portOrderVersion: 1 }, ctx).kind).toBe('ignore');
  });
});

describe('in progress', () => {
  it.each(PORT_STATUSES)('%s', (status) => {
    expect(isInProgress(status)).toBe(!['COMPLETED', 'CANCELLED'].includes(status));
  });
});
