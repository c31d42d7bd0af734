import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { NO_PORTOUT, PORTOUT_STATUSES, PORTOUT_TRIGGERS, PORTOUT_TRANSITIONS, type PortOutState, type PortOutTrigger } from '../../../src/domain/port-out/lifecycle';
import { planPortOut, requestInput, type PortOutInput, type PortOutSettings } from '../../../src/domain/port-out/plan';
import type { PortOut } from '../../../src/domain/port-out/port-out';
import { decodePortOut, encodePortOut } from '../../../src/domain/port-out/port-out';
import { PORTOUT_DECISION_RECORD, PORTOUT_EVENT_RECORD } from '../../../src/domain/port-out/records';
import type { Cause } from '../../../src/domain/portin/messages';

/**
 * The port-out lifecycle, written out here cell by cell independently of the table, and checked on the
 * table, on what the planner does, and on docs/port-out.md's rendering of it.
 */
type Expected = 'start' | 'refuse' | 'conflict' | 'ignore' | 'notFound' | 'deadline' | PortOut['status'];
const EXPECTED: Record<PortOutState, Record<PortOutTrigger, Expected>> = {
  NONE: { PortOutRequested: 'start', PortOutRequestedPortingIn: 'refuse', Approve: 'notFound', Reject: 'notFound', Deadline: 'ignore', PortOutCompleted: 'ignore', PortOutCancelled: 'ignore' },
  VALIDATION_PENDING: {
    PortOutRequested: 'ignore',
    PortOutRequestedPortingIn: 'ignore',
    Approve: 'APPROVED',
    Reject: 'REJECTED',
    Deadline: 'deadline',
    PortOutCompleted: 'COMPLETED',
    PortOutCancelled: 'CANCELLED',
  },
  APPROVED: {
    PortOutRequested: 'ignore',
    PortOutRequestedPortingIn: 'ignore',
    Approve: 'conflict',
    Reject: 'conflict',
    Deadline: 'ignore',
    PortOutCompleted: 'COMPLETED',
    PortOutCancelled: 'CANCELLED',
  },
  REJECTED: {
    PortOutRequested: 'start',
    PortOutRequestedPortingIn: 'refuse',
    Approve: 'conflict',
    Reject: 'conflict',
    Deadline: 'ignore',
    PortOutCompleted: 'COMPLETED',
    PortOutCancelled: 'ignore',
  },
  COMPLETED: {
    PortOutRequested: 'start',
    PortOutRequestedPortingIn: 'refuse',
    Approve: 'conflict',
    Reject: 'conflict',
    Deadline: 'ignore',
    PortOutCompleted: 'ignore',
    PortOutCancelled: 'ignore',
  },
  CANCELLED: {
    PortOutRequested: 'start',
    PortOutRequestedPortingIn: 'refuse',
    Approve: 'conflict',
    Reject: 'conflict',
    Deadline: 'ignore',
    PortOutCompleted: 'COMPLETED',
    PortOutCancelled: 'ignore',
  },
};

const T0 = new Date('2026-03-02T10:00:00.000Z');
const SETTINGS: PortOutSettings = { validationWindowSeconds: 3600, deadlineDecision: 'APPROVE' };
const GPSI = '19459986801';
const cause = (at = new Date(T0.getTime() + 2 * 3600_000), correlationId?: string): Cause => ({ id: `cause-${at.getTime()}`, at, ...(correlationId ? { correlationId } : {}) });

const portOutIn = (status: PortOut['status'], portOutId = 'PO-1'): PortOut => ({
  portOutId,
  gpsi: GPSI,
  status,
  gainingProvider: 'OTHER',
  requestedAt: T0.toISOString(),
  validationDeadline: new Date(T0.getTime() + 3600_000).toISOString(),
  wholesaleCustomerId: 'WC-1',
});

/** The trigger as each cell is driven: a new id for a request, the port-out's own otherwise. */
function inputFor(trigger: PortOutTrigger): PortOutInput {
  switch (trigger) {
    case 'PortOutRequested':
    case 'PortOutRequestedPortingIn':
      return { trigger, gpsi: GPSI, portOutId: 'PO-2', gainingProvider: 'OTHER', owner: { wholesaleCustomerId: 'WC-1' } };
    case 'Reject':
      return { trigger, portOutId: 'PO-1', reasonCode: 'PF' };
    case 'Approve':
    case 'Deadline':
    case 'PortOutCompleted':
    case 'PortOutCancelled':
      return { trigger, portOutId: 'PO-1' };
  }
}

describe('port-out lifecycle', () => {
  const cells = (Object.keys(EXPECTED) as PortOutState[]).flatMap((state) => PORTOUT_TRIGGERS.map((trigger) => [state, trigger, EXPECTED[state][trigger]] as const));

  it.each(cells)('%s + %s → %s, in the table and in the plan', (state, trigger, expected) => {
    const rule = PORTOUT_TRANSITIONS[state][trigger];
    const plan = planPortOut(state === NO_PORTOUT ? undefined : portOutIn(state), inputFor(trigger), cause(), SETTINGS);
    if (expected === 'deadline') {
      expect(rule.action).toBe('decideByDeadline');
      expect(plan).toMatchObject({ kind: 'change', change: { next: { status: 'APPROVED', decidedBy: 'DEADLINE' } } });
    } else if (expected === 'start') {
      expect(rule.action).toBe('start');
      expect(plan).toMatchObject({ kind: 'change', change: { next: { status: 'VALIDATION_PENDING', portOutId: 'PO-2' } } });
    } else if (expected === 'refuse') {
      expect(rule.action).toBe('refuse');
      expect(plan).toMatchObject({ kind: 'change', change: { next: { status: 'REJECTED', portOutId: 'PO-2', decidedBy: 'SYSTEM', reasonCode: 'PI' } } });
    } else if (PORTOUT_STATUSES.includes(expected as PortOut['status'])) {
      expect(rule).toEqual({ action: 'move', to: expected });
      expect(plan).toMatchObject({ kind: 'change', change: { next: { status: expected } } });
    } else {
      expect(rule.action).toBe(expected);
      expect(plan.kind).toBe(expected);
    }
  });

  it('every change publishes one PortOutEvent; a decision tells the NP side; a completion ends the subscription; a start schedules its deadline', () => {
    for (const [state, trigger] of cells) {
      const plan = planPortOut(state === NO_PORTOUT ? undefined : portOutIn(state), inputFor(trigger), cause(), SETTINGS);
      if (plan.kind !== 'change') continue;
      const { next, messages, followUps } = plan.change;
      expect(messages[0]).toMatchObject({
        recordName: PORTOUT_EVENT_RECORD,
        key: GPSI,
        owner: 'WC-1',
        value: { portOutStatus: next.status, previousPortOutStatus: state === NO_PORTOUT || trigger.startsWith('PortOutRequested') ? null : state },
      });
      const decided = next.status === 'APPROVED' || next.status === 'REJECTED';
      expect(messages.slice(1).map((m) => m.recordName)).toEqual(decided ? [PORTOUT_DECISION_RECORD] : []);
      expect(followUps.map((f) => f.kind)).toEqual(next.status === 'COMPLETED' ? ['endSubscription'] : next.status === 'VALIDATION_PENDING' ? ['scheduleDeadline'] : []);
    }
  });

  it('a request for a number with no active subscription here starts nothing', () => {
    expect(planPortOut(undefined, { ...inputFor('PortOutRequested'), owner: undefined } as PortOutInput, cause(), SETTINGS).kind).toBe('ignore');
    expect(planPortOut(undefined, requestInput({ gpsi: GPSI, portOutId: 'PO-2', gainingProvider: 'OTHER' }, {}), cause(), SETTINGS).kind).toBe('ignore');
  });

  it("a request while the number's port-in is in flight is refused at once by the service, the porting partner told, the NP side answered", () => {
    const input = requestInput({ gpsi: GPSI, portOutId: 'PO-2', gainingProvider: 'OTHER' }, { portingIn: { wholesaleCustomerId: 'WC-9', subscriberId: 'S-9' } });
    expect(input.trigger).toBe('PortOutRequestedPortingIn');
    const plan = planPortOut(undefined, input, cause(undefined, 'corr-1'), SETTINGS);
    if (plan.kind !== 'change') throw new Error(`planned ${plan.kind}`);
    expect(plan.change.followUps).toEqual([]);
    expect(plan.change.messages.map((m) => [m.recordName, m.owner])).toEqual([
      [PORTOUT_EVENT_RECORD, 'WC-9'],
      [PORTOUT_DECISION_RECORD, undefined],
    ]);
    expect(plan.change.messages[1].value).toMatchObject({
      portOutId: 'PO-2',
      decision: 'REJECTED',
      reasonCode: 'PI',
      decidedBy: 'SYSTEM',
      reasonDescription: 'A port-in of the number is still in progress',
    });
    // an ACTIVE subscription wins: a pending one cannot be beside it
    expect(requestInput({ gpsi: GPSI, portOutId: 'PO-2', gainingProvider: 'OTHER' }, { owner: { wholesaleCustomerId: 'WC-1' } }).trigger).toBe('PortOutRequested');
  });

  it('the deadline decides only once it has passed, and as PORTOUT_DEADLINE_DECISION says', () => {
    const early = cause(new Date(T0.getTime() + 3599_999));
    expect(planPortOut(portOutIn('VALIDATION_PENDING'), inputFor('Deadline'), early, SETTINGS).kind).toBe('ignore');
    const rejected = planPortOut(portOutIn('VALIDATION_PENDING'), inputFor('Deadline'), cause(), { ...SETTINGS, deadlineDecision: 'REJECT' });
    expect(rejected).toMatchObject({ kind: 'change', change: { next: { status: 'REJECTED', decidedBy: 'DEADLINE', reasonCode: 'NR' } } });
  });

  it('an answer for another port-out id is NOT_FOUND; an NP record for another is ignored', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PORTOUT_STATUSES), fc.constantFrom<PortOutTrigger>('Approve', 'Reject', 'Deadline', 'PortOutCompleted', 'PortOutCancelled'), (status, trigger) => {
        const plan = planPortOut(portOutIn(status, 'PO-OTHER'), inputFor(trigger), cause(), SETTINGS);
        expect(plan.kind).toBe(trigger === 'Approve' || trigger === 'Reject' ? 'notFound' : 'ignore');
      }),
    );
  });

  it('the same cause plans the same messages (a replay publishes the same ce_id)', () => {
    const a = planPortOut(portOutIn('VALIDATION_PENDING'), inputFor('Approve'), cause(undefined, 'corr-1'), SETTINGS);
    const b = planPortOut(portOutIn('VALIDATION_PENDING'), inputFor('Approve'), cause(undefined, 'corr-1'), SETTINGS);
    expect(a).toEqual(b);
  });

  it('the stored record carries its format, reads back, and a newer format is refused', () => {
    const stored = encodePortOut(portOutIn('APPROVED'));
    expect(JSON.parse(stored).v).toBe(1);
    expect(decodePortOut(stored)).toEqual(portOutIn('APPROVED'));
    expect(() => decodePortOut(JSON.stringify({ ...portOutIn('APPROVED'), v: 2 }))).toThrow(/newer than this worker reads/);
  });

  it('docs/port-out.md shows the table as it is', () => {
    const doc = readFileSync('docs/port-out.md', 'utf8');
    for (const state of Object.keys(EXPECTED) as PortOutState[]) {
      const row = PORTOUT_TRIGGERS.map((trigger) => {
        const rule = PORTOUT_TRANSITIONS[state][trigger];
        return rule.action === 'move' ? `→ ${rule.to}` : rule.action === 'decideByDeadline' ? 'deadline decides' : rule.action;
      });
      expect(doc).toContain(`| ${state} | ${row.join(' | ')} |`);
    }
  });
});
