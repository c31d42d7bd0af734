import { createCommand, gpsiEndingIn, statuses } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';
import { until } from '../support/until';

/**
 * Issue 15 item 2 over the real stack: NP responses out of order or partly read. The test plays the NP
 * side by hand (numbers ending in 18 get nothing from the simulator), sending responses in the order a
 * real NP channel can deliver them: an activation before its confirmation, a problem after the FOC, an
 * order id late, a second delay, a resolution with remarks.
 */
describe('NP responses out of order or partly read (real stack)', () => {
  const stack = journeyWithNpSide();
  const HOUR = 3600_000;

  /** A port-in the NP side will answer only by hand; its SubmitPortRequest. */
  async function opened(overrides: Record<string, unknown> = {}) {
    const gpsi = gpsiEndingIn('18');
    const command = createCommand(gpsi, overrides);
    await stack.j.send('CreatePortIn', command);
    return { gpsi, command, submit: await stack.np.request(gpsi) };
  }

  it("an ActivationComplete before any confirmation completes the port, activated at the NP side's activatedAt", async () => {
    const { gpsi, submit } = await opened();
    const activatedAt = new Date(Date.now() - 3 * HOUR).toISOString(); // read from a backlog, hours late
    await stack.np.respond('ActivationComplete', submit, { portOrderId: 'PO-EARLY', activatedAt });
    const events = await stack.j.waitForStatus(gpsi, 'COMPLETED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'COMPLETED/v1']);
    const activated = await stack.np.find(gpsi, 'wholesale.balance.v1.SubscriptionActivated');
    expect(activated.value.occurredAt).toBe(activatedAt);
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ portStatus: 'COMPLETED' });
  });

  it('a ResolutionRequired after the confirmation sends the port back to resolution, with its remarks in the event and the query', async () => {
    const { gpsi, submit } = await opened();
    await stack.np.respond('PortConfirmed', submit, { dueDate: new Date(Date.now() + 24 * HOUR).toISOString() });
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    const remarks = 'Name on the account differs: ADA K. LOVELACE';
    await stack.np.respond('ResolutionRequired', submit, { reasonCode: '1P', reasonDescription: 'Other (remarks required)', remarks });
    const events = await stack.j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'RESOLUTION_REQUIRED/v1']);
    expect(events[2].value).toMatchObject({ previousPortStatus: 'CONFIRMED', reasonCode: '1P', remarks });
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ portStatus: 'RESOLUTION_REQUIRED', reasonCode: '1P', remarks, confirmedDueDate: null });
  });

  it('a PortRejected after the confirmation rejects the port', async () => {
    const { gpsi, submit } = await opened();
    await stack.np.respond('PortConfirmed', submit, { dueDate: new Date(Date.now() + 24 * HOUR).toISOString() });
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    await stack.np.respond('PortRejected', submit, { reasonCode: '7A', reasonDescription: 'Number not portable: conflict at the old provider' });
    expect(statuses(await stack.j.waitForStatus(gpsi, 'REJECTED'))).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'REJECTED/v1']);
  });

  it('a second PortDelayed updates the reason, and tells it in an event', async () => {
    const { gpsi, submit } = await opened();
    await stack.np.respond('PortDelayed', submit, { reasonCode: '1N', reasonDescription: 'Due date and time cannot be met' });
    await stack.j.waitForStatus(gpsi, 'DELAYED');
    await stack.np.respond('PortDelayed', submit, { reasonCode: '6E', reasonDescription: "Due date can't be met" });
    await stack.j.waitForRecord(gpsi, (r) => r.reasonCode === '6E');
    // the record is written before its event is sent: wait for the event, then check there is exactly one more
    const events = await until('the second DELAYED event', async () => (stack.j.eventsFor(gpsi).some((e) => e.value.reasonCode === '6E') ? stack.j.eventsFor(gpsi) : undefined));
    expect(statuses(events)).toEqual(['OPEN/v1', 'DELAYED/v1', 'DELAYED/v1']);
    expect(events[2].value).toMatchObject({ previousPortStatus: 'DELAYED', reasonCode: '6E', reasonDescription: "Due date can't be met" });
  });

  it('an OrderIdAssigned for an older version is recorded: later supplements and cancels carry the order id', async () => {
    const { gpsi, command, submit } = await opened();
    await stack.np.respond('ResolutionRequired', submit, { reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' });
    await stack.j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    await stack.j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } });
    await stack.j.waitForStatus(gpsi, 'OPEN', '2');
    await stack.np.respond('OrderIdAssigned', submit, { portOrderId: 'PO-LATE-1', oldNetworkServiceProvider: 'ONSP-LATE' }); // answers version 1
    expect(await stack.j.waitForRecord(gpsi, (r) => r.portOrderId === 'PO-LATE-1')).toMatchObject({ portOrderVersion: '2', oldNetworkServiceProvider: 'ONSP-LATE' });
    await stack.j.send('CancelPortIn', { gpsi });
    const cancel = await stack.np.request(gpsi, 'np.portin.v1.CancelPortRequest');
    expect(cancel.value).toMatchObject({ portOrderId: 'PO-LATE-1', portOrderVersion: 2 });
    expect((await stack.j.send('QueryPortIn', { portOrderId: 'PO-LATE-1' })).value).toMatchObject({ gpsi, status: 'Success' });
  });
});
