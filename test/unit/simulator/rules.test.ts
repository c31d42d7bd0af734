import { NP_REQUEST_RECORDS, NP_RESPONSE_RECORDS } from '../../../src/domain/portin/records';
import { SIM_RULES, SIM_TIMELINE, plan, portOrderIdFor, ruleFor, supersedesPending, type SimRequest } from '../../../dev/np-simulator/rules';

const T0 = new Date('2026-03-04T10:00:00.000Z');
const DUE = '2026-03-05T10:00:00.000Z';
const submit = (overrides: Partial<SimRequest> = {}): SimRequest => ({
  recordName: NP_REQUEST_RECORDS.submit,
  requestId: 'req-1',
  gpsi: '19459986891',
  portOrderVersion: 1,
  desiredDueDate: DUE,
  portInfo: { pwdPin: '4321', accountNo: '123456' },
  ...overrides,
});
const short = (name: string) => name.slice(name.lastIndexOf('.') + 1);
const timeline = (request: SimRequest) => plan(request, T0).map((r) => [short(r.recordName), r.afterMs] as const);

describe('NP simulator rules', () => {
  it('confirms for the desired due date and completes then, after assigning the order id', () => {
    const responses = plan(submit(), T0);
    expect(timeline(submit())).toEqual([
      ['OrderIdAssigned', SIM_TIMELINE.orderIdAssignedAfterMs],
      ['PortConfirmed', SIM_TIMELINE.answerAfterMs],
      ['ActivationComplete', Date.parse(DUE) - T0.getTime()],
    ]);
    expect(responses[0].value).toMatchObject({ portOrderId: portOrderIdFor('req-1'), oldNetworkServiceProvider: 'ONSP-68', requestId: 'req-1', portOrderVersion: 1 });
    expect(responses[1].value).toMatchObject({ dueDate: DUE });
    expect(responses[2].value).toMatchObject({ activatedAt: DUE });
  });

  it('pwdPin "0000" → resolution required 8C', () => {
    const responses = plan(submit({ portInfo: { pwdPin: '0000', accountNo: '123456' } }), T0);
    expect(responses.map((r) => short(r.recordName))).toEqual(['OrderIdAssigned', 'ResolutionRequired']);
    expect(responses[1].value).toMatchObject({ reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' });
  });

  it('an accountNo of all zeros → resolution required 8D', () => {
    const responses = plan(submit({ portInfo: { pwdPin: '1', accountNo: '0000000' } }), T0);
    expect(responses[1]).toMatchObject({ recordName: NP_RESPONSE_RECORDS.ResolutionRequired, value: { reasonCode: '8D' } });
  });

  it('pwdPin "1111" → resolution required 1P with the NP side\'s remarks; the other resolutions carry none', () => {
    const responses = plan(submit({ portInfo: { pwdPin: '1111', accountNo: '123456' } }), T0);
    expect(responses[1]).toMatchObject({ recordName: NP_RESPONSE_RECORDS.ResolutionRequired, value: { reasonCode: '1P', remarks: "The old provider needs the account holder's date of birth" } });
    expect(plan(submit({ portInfo: { pwdPin: '0000', accountNo: '123456' } }), T0)[1].value).not.toHaveProperty('remarks');
  });

  it('a gpsi ending in 13 → rejected 7A, before any other rule', () => {
    const responses = plan(submit({ gpsi: '19459986813', portInfo: { pwdPin: '0000' } }), T0);
    expect(responses[1]).toMatchObject({ recordName: NP_RESPONSE_RECORDS.PortRejected, value: { reasonCode: '7A' } });
  });

  it('a gpsi ending in 14 → delayed (1N), then confirmed, then completed', () => {
    const confirmAt = SIM_TIMELINE.answerAfterMs + SIM_TIMELINE.confirmedAfterDelayMs;
    expect(timeline(submit({ gpsi: '19459986814' }))).toEqual([
      ['OrderIdAssigned', SIM_TIMELINE.orderIdAssignedAfterMs],
      ['PortDelayed', SIM_TIMELINE.answerAfterMs],
      ['PortConfirmed', confirmAt],
      ['ActivationComplete', Date.parse(DUE) - T0.getTime()],
    ]);
  });

  it('a gpsi ending in 00 gets its order id and nothing else', () => {
    expect(timeline(submit({ gpsi: '19459986800' }))).toEqual([['OrderIdAssigned', SIM_TIMELINE.orderIdAssignedAfterMs]]);
  });

  it('a due date already past is met as soon as the port is confirmed', () => {
    const responses = plan(submit({ desiredDueDate: '2020-01-01T00:00:00.000Z' }), T0);
    expect(responses[2].afterMs).toBe(SIM_TIMELINE.answerAfterMs);
  });

  it('answers a supplement for its version, without a new order id', () => {
    const supplement = plan(submit({ recordName: NP_REQUEST_RECORDS.supplement, portOrderId: 'PO-X', portOrderVersion: 2 }), T0);
    expect(supplement.map((r) => short(r.recordName))).toEqual(['PortConfirmed', 'ActivationComplete']);
    expect(supplement[0].value).toMatchObject({ portOrderId: 'PO-X', portOrderVersion: 2 });
  });

  const cancel = (gpsi: string, sentAt = '2026-03-04T11:00:00.000Z') => submit({ recordName: NP_REQUEST_RECORDS.cancel, gpsi, portInfo: undefined, portOrderId: 'PO-X', sentAt });

  it('confirms a cancel and drops what the order had pending; each cancel gets its own answer id', () => {
    expect(timeline(cancel('19459986891'))).toEqual([['CancelConfirmed', SIM_TIMELINE.cancelAnswerAfterMs]]);
    expect(plan(cancel('19459986891'), T0)[0].value).toMatchObject({ requestId: 'req-1', portOrderId: 'PO-X', portOrderVersion: 1 });
    expect(supersedesPending(cancel('19459986891'))).toBe(true);
    expect(plan(cancel('19459986891'), T0)[0].value.responseId).not.toBe(plan(cancel('19459986891', '2026-03-04T12:00:00.000Z'), T0)[0].value.responseId);
  });

  it('a gpsi ending in 15 is confirmed and never activated', () => {
    expect(timeline(submit({ gpsi: '19459986815' }))).toEqual([
      ['OrderIdAssigned', SIM_TIMELINE.orderIdAssignedAfterMs],
      ['PortConfirmed', SIM_TIMELINE.answerAfterMs],
    ]);
  });

  it('a gpsi ending in 16 refuses a cancel (CR) and keeps what the order had pending', () => {
    expect(timeline(submit({ gpsi: '19459986816' })).map(([name]) => name)).toEqual(['OrderIdAssigned', 'PortConfirmed']);
    const [refused] = plan(cancel('19459986816'), T0);
    expect(refused).toMatchObject({ recordName: NP_RESPONSE_RECORDS.CancelRefused, value: { reasonCode: 'CR' } });
    expect(supersedesPending(cancel('19459986816'))).toBe(false);
    expect(supersedesPending(submit({ gpsi: '19459986816' }))).toBe(true);
  });

  it('a gpsi ending in 18 gets nothing at all: no order id, no answer to a cancel', () => {
    expect(plan(submit({ gpsi: '19459986818' }), T0)).toEqual([]);
    expect(plan(submit({ gpsi: '19459986818', recordName: NP_REQUEST_RECORDS.supplement }), T0)).toEqual([]);
    expect(plan(cancel('19459986818'), T0)).toEqual([]);
  });

  it('a gpsi ending in 17 answers nothing, not even a cancel', () => {
    expect(timeline(submit({ gpsi: '19459986817' }))).toEqual([['OrderIdAssigned', SIM_TIMELINE.orderIdAssignedAfterMs]]);
    expect(plan(cancel('19459986817'), T0)).toEqual([]);
  });

  it('is deterministic: the same request gives the same response ids; another version other ids', () => {
    const ids = (request: SimRequest) => plan(request, T0).map((r) => r.value.responseId);
    expect(ids(submit())).toEqual(ids(submit()));
    expect(new Set([...ids(submit()), ...ids(submit({ portOrderVersion: 2 }))]).size).toBe(6);
  });

  it('ends with a rule that always matches', () => {
    expect(SIM_RULES[SIM_RULES.length - 1].when).toBe('always');
    expect(ruleFor(submit({ portInfo: {} })).then).toEqual({ respond: 'PortConfirmed' });
  });
});
