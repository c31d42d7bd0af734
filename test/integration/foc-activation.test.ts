import { createCommand, gpsiEndingIn } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';
import { until } from '../support/until';

/**
 * The FOC date over the real stack (issue 48): the requested and confirmed FOC dates and the activation
 * window in the events; activation on demand inside the window (the NP side asked, its ActivationComplete
 * completes the port) and refused outside it, the window in the error. Numbers ending in 18 get nothing
 * from the simulator, so the test plays the NP side's confirmation and cut-over itself.
 */
describe('the FOC date and activation on demand (real stack)', () => {
  const stack = journeyWithNpSide();
  const DAY = 24 * 3600_000;

  async function confirmed(dueDate: string) {
    const gpsi = gpsiEndingIn('18');
    const command = createCommand(gpsi);
    await stack.j.send('CreatePortIn', command);
    const submit = await stack.np.request(gpsi);
    await stack.np.respond('OrderIdAssigned', submit, { portOrderId: 'PO-FOC', oldNetworkServiceProvider: 'ONSP-FOC' });
    await stack.np.respond('PortConfirmed', submit, { portOrderId: 'PO-FOC', dueDate });
    const events = await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    return { gpsi, command, submit, event: events.find((e) => e.value.portStatus === 'CONFIRMED')! };
  }

  it('inside the window: the events carry the FOC dates and the window, ActivatePortIn asks the NP side, its ActivationComplete completes the port', async () => {
    const dueDate = new Date().toISOString();
    const { gpsi, command, submit, event } = await confirmed(dueDate);
    const dayStart = new Date(Math.floor(Date.parse(dueDate) / DAY) * DAY).toISOString();
    const dayEnd = new Date(Date.parse(dayStart) + DAY).toISOString();
    expect(event.value).toMatchObject({ confirmedFocDate: dueDate, activationWindowStart: dayStart, activationWindowEnd: dayEnd });
    expect(event.value.requestedFocDate).toBe(submit.value.desiredDueDate);

    const reply = await stack.j.send('ActivatePortIn', { gpsi, partnerTransactionId: command.partnerTransactionId });
    expect(reply.value).toEqual({
      status: 'Success',
      partnerTransactionId: command.partnerTransactionId,
      gpsi,
      portStatus: 'CONFIRMED',
      confirmedFocDate: dueDate,
      activationWindowStart: dayStart,
      activationWindowEnd: dayEnd,
    });
    const activation = await stack.np.request(gpsi, 'np.portin.v1.ActivatePortRequest');
    expect(activation.value).toMatchObject({ requestId: submit.value.requestId, portOrderId: 'PO-FOC', portOrderVersion: 1 });
    await stack.np.respond('ActivationComplete', submit, { portOrderId: 'PO-FOC', activatedAt: new Date().toISOString() });
    const events = await stack.j.waitForStatus(gpsi, 'COMPLETED');
    expect(events.at(-1)!.value).toMatchObject({ confirmedFocDate: dueDate, activationWindowStart: null });
    await until('the subscription activated', async () => stack.np.seen.find((r) => r.key === gpsi && r.recordName === 'wholesale.balance.v1.SubscriptionActivated'));
  });

  it('outside the window (a FOC date two days ahead) and before the confirmation: refused, naming the window or the status', async () => {
    const early = gpsiEndingIn('18');
    await stack.j.send('CreatePortIn', createCommand(early));
    await stack.np.request(early);
    expect((await stack.j.send('ActivatePortIn', { gpsi: early })).value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'portStatus', reason: 'is OPEN' }] } });

    const dueDate = new Date(Date.now() + 2 * DAY).toISOString();
    const { gpsi } = await confirmed(dueDate);
    const refused = await stack.j.send('ActivatePortIn', { gpsi });
    const windowStart = new Date(Math.floor(Date.parse(dueDate) / DAY) * DAY).toISOString();
    expect(refused.value).toMatchObject({ status: 'CONFLICT', error: { problems: [{ path: 'activationWindow' }] } });
    expect(refused.value.error.problems[0].reason).toContain(`opens ${windowStart}`);
    expect(stack.np.seen.some((r) => r.key === gpsi && r.recordName === 'np.portin.v1.ActivatePortRequest')).toBe(false);
    expect((await stack.j.send('ActivatePortIn', { gpsi: '123' })).value.status).toBe('BAD_REQUEST');
  });
});
