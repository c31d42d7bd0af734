import fc from 'fast-check';
import { expiryDeadline } from '../../../src/domain/portin/expiry';
import { NP_TRIGGERS, PORT_STATUSES, isInProgress, ruleFor, type NpTrigger } from '../../../src/domain/portin/lifecycle';
import type { Cause } from '../../../src/domain/portin/messages';
import type { PortInRequest } from '../../../src/domain/portin/request';
import { planCancel, planCreate, planExpiry, planNpResponse, planUpdate, type Plan } from '../../../src/domain/portin/transitions';
import { SETTINGS, T0, createCommand, npResponse, subscriptionFor } from '../../support/portin/fixtures';

/**
 * Properties of the port lifecycle over random histories: any sequence of partner commands, NP responses
 * (current, stale or foreign, repeated or not) and expiry ticks, planned by the pure planners. Whatever the
 * order, only moves the table allows happen, the version grows by exactly one per accepted UpdatePortIn (no
 * gaps), an NP response for another request or version changes nothing (but an order id or an activation
 * answering an older version: facts of the order whatever its version), the same response delivered
 * twice in a row changes nothing the second time, a finished request holds no secrets, and wherever a
 * history stops, a request still in progress has a deadline after which the timer ends it.
 */
type Step =
  | { kind: 'update' }
  | { kind: 'dueDate' }
  | { kind: 'cancel' }
  | { kind: 'expire'; afterDays: number }
  | { kind: 'np'; trigger: NpTrigger; versionOffset: number; foreign: boolean; twice: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'update' }),
  fc.constant<Step>({ kind: 'dueDate' }),
  fc.constant<Step>({ kind: 'cancel' }),
  fc.record({ kind: fc.constant('expire' as const), afterDays: fc.integer({ min: 0, max: 60 }) }),
  fc.record({
    kind: fc.constant('np' as const),
    trigger: fc.constantFrom(...NP_TRIGGERS),
    versionOffset: fc.constantFrom(0, 0, 0, -1, 1),
    foreign: fc.boolean(),
    twice: fc.boolean(),
  }),
);

function created(): PortInRequest {
  const plan = planCreate(undefined, createCommand(), { requestId: 'req-1', wholesaleCustomerId: 'WC-1', payloadHash: 'h', correlationId: 'c', now: T0 }, subscriptionFor(), {
    cause: { id: 'create', at: T0, correlationId: 'c' },
    settings: SETTINGS,
  });
  if (plan.kind !== 'change') throw new Error('a create on a free number must open a request');
  return plan.change.next;
}

describe('port lifecycle over random histories', () => {
  it('moves only as the table says, versions without gaps, stale/foreign/repeated responses change nothing', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let current = created();
        let clock = T0.getTime();
        let updates = 0;
        const versions = [current.portOrderVersion];
        steps.forEach((s, i) => {
          clock += 60_000;
          const cause: Cause = { id: `cause-${i}`, at: new Date(clock), correlationId: `corr-${i}` };
          const ctx = { cause, settings: SETTINGS };
          let plan: Plan;
          let response;
          switch (s.kind) {
            case 'update':
              plan = planUpdate(current, { partnerTransactionId: 'PTX-1', gpsi: current.gpsi, updatePortInfo: { pwdPin: String(1000 + i) } }, ctx);
              break;
            case 'dueDate':
              plan = planUpdate(current, { partnerTransactionId: 'PTX-1', gpsi: current.gpsi, updatePortInfo: {}, desiredDueDate: new Date(clock + 5 * 24 * 3600 * 1000).toISOString() }, ctx);
              break;
            case 'cancel':
              plan = planCancel(current, ctx);
              break;
            case 'expire':
              clock += s.afterDays * 24 * 3600 * 1000;
              plan = planExpiry(current, { requestId: current.requestId, portOrderVersion: current.portOrderVersion }, { ...ctx, cause: { ...cause, at: new Date(clock) } });
              break;
            case 'np':
              response = npResponse(s.trigger, {
                responseId: `resp-${i}`,
                requestId: s.foreign ? 'req-other' : current.requestId,
                portOrderVersion: current.portOrderVersion + s.versionOffset,
                portOrderId: 'PO-1',
              });
              plan = planNpResponse(current, response, ctx);
              break;
          }
          const trigger = { update: 'UpdatePortIn', dueDate: 'UpdateDueDate', cancel: 'CancelPortIn', expire: 'Expire' } as const;
          const rule = ruleFor(current.portStatus, s.kind === 'np' ? s.trigger : trigger[s.kind]);
          // facts of the order (its id, the number live) hold whatever older version the NP side answered
          const lateFact = s.kind === 'np' && s.versionOffset < 0 && (s.trigger === 'OrderIdAssigned' || s.trigger === 'ActivationComplete');
          if (s.kind === 'np' && (s.foreign || s.versionOffset !== 0) && !lateFact) expect(plan.kind).toBe('ignore');
          if (plan.kind === 'conflict') expect(rule.action).toBe('conflict');
          if (plan.kind === 'change') {
            const { next } = plan.change;
            expect(PORT_STATUSES).toContain(next.portStatus);
            if (rule.action === 'annotate' || rule.action === 'revise') expect(next.portStatus).toBe(current.portStatus);
            else if (rule.action === 'resume') expect(next.portStatus).toBe(current.statusBeforeCancel);
            else expect(rule).toMatchObject({ action: 'move', to: next.portStatus });
            // only a request waiting for its cancel's answer knows where to go back to
            expect(next.statusBeforeCancel !== undefined).toBe(next.portStatus === 'CANCEL_PENDING');
            if (!isInProgress(next.portStatus)) expect(next.secrets).toEqual({});
            if (s.kind === 'update' || s.kind === 'dueDate') updates++;
            else expect(next.portOrderVersion).toBe(current.portOrderVersion);
            current = next;
            versions.push(current.portOrderVersion);
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc does not narrow `response` inside this callback; eslint does
            if (s.kind === 'np' && s.twice) expect(planNpResponse(current, response!, ctx).kind).toBe('ignore');
          }
        });
        // versions: 1, then +1 per accepted update, never a gap or a step back
        expect(current.portOrderVersion).toBe(1 + updates);
        // every port can end: wherever the history left it, a request in progress has a deadline, and
        // the timer past it ends the request
        const deadline = expiryDeadline(current, SETTINGS);
        expect(deadline !== undefined).toBe(isInProgress(current.portStatus));
        if (deadline) {
          const ended = planExpiry(current, current, { cause: { id: 'timer', at: new Date(deadline.getTime() + 1) }, settings: SETTINGS });
          expect(ended).toMatchObject({ kind: 'change', change: { next: { portStatus: 'CANCELLED', secrets: {} } } });
        }
        versions.forEach((v, i) => i > 0 && expect(v - versions[i - 1]).toBeGreaterThanOrEqual(0));
        versions.forEach((v, i) => i > 0 && expect(v - versions[i - 1]).toBeLessThanOrEqual(1));
      }),
      { numRuns: 500 },
    );
  });

  it('finished ports stay finished: no NP response or timer moves a COMPLETED or CANCELLED request', () => {
    fc.assert(
      fc.property(fc.constantFrom('COMPLETED' as const, 'CANCELLED' as const), fc.constantFrom(...NP_TRIGGERS), fc.integer({ min: 0, max: 90 }), (status, trigger, days) => {
        const current = { ...created(), portStatus: status, portOrderId: 'PO-1' };
        const ctx = { cause: { id: 'late', at: new Date(T0.getTime() + days * 24 * 3600 * 1000) }, settings: SETTINGS };
        expect(planNpResponse(current, npResponse(trigger, { requestId: current.requestId, portOrderVersion: current.portOrderVersion }), ctx).kind).toBe('ignore');
        expect(planExpiry(current, { requestId: current.requestId, portOrderVersion: current.portOrderVersion }, ctx).kind).toBe('ignore');
      }),
    );
  });
});
