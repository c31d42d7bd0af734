import { HEADER } from '../../src/contract/headers';
import { createCommand, gpsiEndingIn, statuses, weekdayClock } from '../support/portin/journey';
import { journeyWithNpSide, type NpSide } from '../support/portin/np-side';
import { until } from '../support/until';

/**
 * Issue 15 item 1 over the real stack: every port can end. A request the NP side is working on (OPEN,
 * DELAYED, CONFIRMED) is cancelled through CancelPortRequest and the NP side's answer (CANCEL_PENDING
 * meanwhile; a refusal puts it back); a request nobody answers, never activated, or whose cancel is never
 * answered is abandoned by the timer. Each end publishes its event, cancels the pending subscription and
 * frees the number.
 */
const npCancel = (np: NpSide, gpsi: string) => np.find(gpsi, 'np.portin.v1.CancelPortRequest');
const subscriptionCancelled = (np: NpSide, gpsi: string) => np.find(gpsi, 'wholesale.balance.v1.SubscriptionCancelled');

describe('CancelPortIn while the NP side works on the port (real stack, NP simulator)', () => {
  const stack = journeyWithNpSide();

  it('OPEN → CANCEL_PENDING → CANCELLED once the NP side confirms the cancel; the subscription is cancelled and the number free', async () => {
    const gpsi = gpsiEndingIn('00'); // the old provider never answers: the port would stay OPEN for good
    const command = createCommand(gpsi);
    await stack.j.send('CreatePortIn', command);
    await stack.j.waitForRecord(gpsi, (r) => typeof r.portOrderId === 'string');
    const cancel = await stack.j.send('CancelPortIn', { partnerTransactionId: command.partnerTransactionId, gpsi });
    expect(cancel.recordName).toBe('wholesale.portin.v1.CancelPortInReply');
    expect(cancel.value).toMatchObject({ status: 'Success', portStatus: 'CANCEL_PENDING' });

    const events = await stack.j.waitForStatus(gpsi, 'CANCELLED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'CANCEL_PENDING/v1', 'CANCELLED/v1']);
    expect(events[1].value).toMatchObject({ previousPortStatus: 'OPEN', reasonCode: 'CP', correlationId: cancel.headers[HEADER.correlationId] });
    // the NP side's answer ends it, for the partner's reason, with the cancel's correlation id
    expect(events[2].value).toMatchObject({ previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CP' });
    expect((await npCancel(stack.np, gpsi)).value).toMatchObject({ gpsi, reasonCode: 'CP', portOrderId: events[2].value.portOrderId, portOrderVersion: 1 });
    expect((await subscriptionCancelled(stack.np, gpsi)).value).toMatchObject({ gpsi });
    expect((await stack.j.send('CheckPortInEligibility', { gpsi })).value.eligibilityStatus).toBe('Eligible');
    const again = await stack.j.send('CreatePortIn', createCommand(gpsi));
    expect(again.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', portOrderVersion: '1' });
  });

  it('CONFIRMED (a cut-over never reported) → CANCEL_PENDING → CANCELLED', async () => {
    const gpsi = gpsiEndingIn('15');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    expect((await stack.j.send('CancelPortIn', { gpsi })).value).toMatchObject({ portStatus: 'CANCEL_PENDING' });
    const events = await stack.j.waitForStatus(gpsi, 'CANCELLED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'CANCEL_PENDING/v1', 'CANCELLED/v1']);
    await subscriptionCancelled(stack.np, gpsi);
  });

  it('a cancel the NP side refuses puts the port back in CONFIRMED with its reason; the partner may ask again', async () => {
    const gpsi = gpsiEndingIn('16');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    const eventsAfter = (count: number) =>
      until(`${count} events for ${gpsi}`, async () => (stack.j.eventsFor(gpsi).length >= count ? stack.j.eventsFor(gpsi) : undefined), { timeoutMs: 15000, intervalMs: 50 });
    await stack.j.send('CancelPortIn', { gpsi });
    const events = await eventsAfter(4);
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'CANCEL_PENDING/v1', 'CONFIRMED/v1']);
    expect(events[3].value).toMatchObject({ previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CR', reasonDescription: 'Cancel refused: the port is past its point of no return' });
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ portStatus: 'CONFIRMED', reasonCode: 'CR' });
    expect((await stack.j.send('CheckPortInEligibility', { gpsi })).value).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8P' });
    // a second cancel of the same version gets its own answer (not taken for a repeat of the first)
    expect((await stack.j.send('CancelPortIn', { gpsi })).value).toMatchObject({ portStatus: 'CANCEL_PENDING' });
    expect(statuses((await eventsAfter(6)).slice(4))).toEqual(['CANCEL_PENDING/v1', 'CONFIRMED/v1']);
    expect(stack.np.seen.filter((r) => r.key === gpsi && r.recordName === 'wholesale.balance.v1.SubscriptionCancelled')).toEqual([]);
  });
});

describe('abandonment by the timer (real stack, short deadlines)', () => {
  const clock = weekdayClock();
  const stack = journeyWithNpSide(
    {
      PORTIN_DUE_INTERVAL_BUSINESS_DAYS: '0',
      PORTIN_NO_ANSWER_AFTER_DUE_SECONDS: '2',
      PORTIN_ACTIVATION_GRACE_SECONDS: '1',
      PORTIN_CANCEL_ANSWER_TIMEOUT_SECONDS: '1',
      PORTIN_EXPIRY_SWEEP_INTERVAL_MS: '200',
    },
    { clock },
  );

  it('an OPEN request the NP side never answers is cancelled past its due date (NA): event, NP cancel, subscription cancelled', async () => {
    const gpsi = gpsiEndingIn('00');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    const events = await stack.j.waitForStatus(gpsi, 'CANCELLED', '1', 15000);
    expect(statuses(events)).toEqual(['OPEN/v1', 'CANCELLED/v1']);
    expect(events[1].value).toMatchObject({ previousPortStatus: 'OPEN', reasonCode: 'NA', reasonDescription: 'abandoned: no answer from the number-portability side', correlationId: null });
    const waited = Date.parse(events[1].value.eventTime) - Date.parse(events[0].value.eventTime);
    expect(waited).toBeGreaterThanOrEqual(2000);
    expect((await npCancel(stack.np, gpsi)).value).toMatchObject({ reasonCode: 'NA' });
    await subscriptionCancelled(stack.np, gpsi);
    expect((await stack.j.send('CheckPortInEligibility', { gpsi })).value.eligibilityStatus).toBe('Eligible');
  });

  it('a CONFIRMED port never activated is cancelled past its due date plus the grace period (AO)', async () => {
    const gpsi = gpsiEndingIn('00'); // confirmed by hand: a due date of now (the simulator's is in its own, scaled time)
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    await stack.np.respond('PortConfirmed', await stack.np.request(gpsi), { dueDate: new Date(clock().getTime() - 60_000).toISOString() });
    const events = await stack.j.waitForStatus(gpsi, 'CANCELLED', '1', 15000);
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'CANCELLED/v1']);
    expect(events[2].value).toMatchObject({ previousPortStatus: 'CONFIRMED', reasonCode: 'AO', reasonDescription: 'abandoned: not activated by the confirmed due date' });
    expect(Date.parse(events[2].value.eventTime) - Date.parse(events[1].value.eventTime)).toBeGreaterThanOrEqual(1000);
    expect((await npCancel(stack.np, gpsi)).value).toMatchObject({ reasonCode: 'AO' });
    await subscriptionCancelled(stack.np, gpsi);
  });

  it('a cancel the NP side never answers ends as CANCELLED after its timeout (CU)', async () => {
    const gpsi = gpsiEndingIn('17');
    await stack.j.send('CreatePortIn', createCommand(gpsi));
    expect((await stack.j.send('CancelPortIn', { gpsi })).value).toMatchObject({ portStatus: 'CANCEL_PENDING' });
    const events = await stack.j.waitForStatus(gpsi, 'CANCELLED', '1', 15000);
    expect(statuses(events)).toEqual(['OPEN/v1', 'CANCEL_PENDING/v1', 'CANCELLED/v1']);
    expect(events[2].value).toMatchObject({ previousPortStatus: 'CANCEL_PENDING', reasonCode: 'CU' });
    await subscriptionCancelled(stack.np, gpsi);
  });
});
