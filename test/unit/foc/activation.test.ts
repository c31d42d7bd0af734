import fc from 'fast-check';
import { activationAllowed, activationRefused, checkActivatePortIn, planActivation } from '../../../src/domain/foc/activate';
import { activationWindow, isInside } from '../../../src/domain/foc/activation-window';
import { ACTIVATE_PORT_REQUEST_RECORD } from '../../../src/domain/foc/records';
import { PORT_STATUSES } from '../../../src/domain/portin/lifecycle';
import { activationEvent } from '../../../src/domain/portin/messages';
import { planActivationOnDemand } from '../../../dev/np-simulator/activation';
import { planPortOutDecision } from '../../../dev/np-simulator/port-out';
import { T0, requestIn } from '../../support/portin/fixtures';

const DAY = 24 * 3600_000;
const FOC = '2026-03-05T15:30:00.000Z';

describe('the activation window', () => {
  it("is the confirmed FOC date's UTC day, and holds every instant of that day and none outside", () => {
    expect(activationWindow(FOC)).toEqual({ start: '2026-03-05T00:00:00.000Z', end: '2026-03-06T00:00:00.000Z' });
    expect(activationWindow(undefined)).toBeUndefined();
    fc.assert(
      fc.property(fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }), fc.integer({ min: -2 * DAY, max: 2 * DAY }), (foc, offset) => {
        const window = activationWindow(foc.toISOString())!;
        const now = new Date(foc.getTime() + offset);
        const sameDay = Math.floor(now.getTime() / DAY) === Math.floor(foc.getTime() / DAY);
        expect(isInside(window, now)).toBe(sameDay);
      }),
    );
  });
});

describe('ActivatePortIn rules', () => {
  const confirmed = requestIn('CONFIRMED', { confirmedDueDate: FOC });

  it('is taken in CONFIRMED inside the window only; every other status is refused naming it', () => {
    expect(activationAllowed(confirmed, new Date('2026-03-05T08:00:00Z'))).toEqual({ ok: true, window: activationWindow(FOC) });
    for (const status of PORT_STATUSES.filter((s) => s !== 'CONFIRMED')) {
      const request = requestIn(status, { confirmedDueDate: FOC });
      const allowed = activationAllowed(request, new Date('2026-03-05T08:00:00Z'));
      expect(allowed.ok).toBe(false);
      if (!allowed.ok) expect(activationRefused(request, allowed.refusal, T0)).toMatchObject({ code: 'CONFLICT', problems: [{ path: 'portStatus', reason: `is ${status}` }] });
    }
  });

  it('outside the window the refusal names the window', () => {
    const now = new Date('2026-03-04T23:59:59.999Z');
    const allowed = activationAllowed(confirmed, now);
    expect(allowed.ok).toBe(false);
    if (!allowed.ok) {
      expect(activationRefused(confirmed, allowed.refusal, now).problems).toEqual([
        { path: 'activationWindow', reason: 'opens 2026-03-05T00:00:00.000Z, closes 2026-03-06T00:00:00.000Z; now is 2026-03-04T23:59:59.999Z' },
      ]);
    }
  });

  it('plans the request unchanged and one ActivatePortRequest for its version', () => {
    const plan = planActivation(confirmed, { id: 'cmd:1', at: T0, correlationId: 'c-1' });
    expect(plan).toMatchObject({ kind: 'change', change: { next: confirmed, followUps: [] } });
    if (plan.kind === 'change') {
      expect(plan.change.messages).toEqual([
        expect.objectContaining({
          recordName: ACTIVATE_PORT_REQUEST_RECORD,
          key: confirmed.gpsi,
          value: expect.objectContaining({ requestId: confirmed.requestId, portOrderVersion: confirmed.portOrderVersion, correlationId: 'c-1' }),
        }),
      ]);
    }
  });

  it('lists every problem of the command', () => {
    expect(checkActivatePortIn({ gpsi: null, partnerTransactionId: '' }).problems.map((p) => p.path)).toEqual(['gpsi', 'partnerTransactionId']);
  });

  it('the event carries the requested and confirmed FOC dates, and the window while CONFIRMED only', () => {
    const event = activationEvent('OPEN', confirmed, { id: 'np:1', at: T0 });
    expect(event.value).toMatchObject({
      requestedFocDate: confirmed.desiredDueDate,
      confirmedFocDate: FOC,
      activationWindowStart: '2026-03-05T00:00:00.000Z',
      activationWindowEnd: '2026-03-06T00:00:00.000Z',
    });
    const completed = activationEvent('CONFIRMED', { ...confirmed, portStatus: 'COMPLETED' }, { id: 'np:2', at: T0 });
    expect(completed.value).toMatchObject({ confirmedFocDate: FOC, activationWindowStart: null, activationWindowEnd: null });
  });
});

describe('the NP simulator', () => {
  const request = { recordName: ACTIVATE_PORT_REQUEST_RECORD, requestId: 'R-1', gpsi: '19459986801', portOrderVersion: 2, portOrderId: 'PO-1' };

  it('answers an activation on demand with ActivationComplete, except for a number it never answers', () => {
    expect(planActivationOnDemand(request, T0)).toEqual([
      expect.objectContaining({ recordName: 'np.portin.v1.ActivationComplete', value: expect.objectContaining({ requestId: 'R-1', portOrderVersion: 2 }) }),
    ]);
    expect(planActivationOnDemand({ ...request, gpsi: '19459986818' }, T0)).toEqual([]);
  });

  it('completes an approved port-out and nothing else', () => {
    const decision = { recordName: 'np.portin.v1.PortOutDecision', portOutId: 'OUT-1', gpsi: '19459986801' };
    expect(planPortOutDecision({ ...decision, decision: 'APPROVED' })).toEqual([
      expect.objectContaining({ recordName: 'np.portin.v1.PortOutCompleted', value: expect.objectContaining({ portOutId: 'OUT-1' }) }),
    ]);
    expect(planPortOutDecision({ ...decision, decision: 'REJECTED' })).toEqual([]);
  });

  it("withdraws an approved port-out of a number ending in 19 (the gaining provider's customer changed their mind)", () => {
    const decision = { recordName: 'np.portin.v1.PortOutDecision', portOutId: 'OUT-2', gpsi: '19459986819', decision: 'APPROVED' };
    const [withdrawn, ...more] = planPortOutDecision(decision);
    expect(more).toEqual([]);
    expect(withdrawn).toEqual({
      afterMs: 30_000,
      recordName: 'np.portin.v1.PortOutCancelled',
      value: { responseId: expect.stringMatching(/^sim-[0-9a-f]{24}$/), gpsi: '19459986819', portOutId: 'OUT-2', reason: expect.any(String) },
    });
    // played again, the same response id: the service ignores the repeat
    expect(planPortOutDecision(decision)[0].value).toEqual(withdrawn.value);
    expect(planPortOutDecision({ ...decision, gpsi: '19459986801' })[0].value).not.toHaveProperty('responseId', (withdrawn.value as { responseId: string }).responseId);
  });
});
