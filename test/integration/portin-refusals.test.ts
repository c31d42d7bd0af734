import { randomUUID } from 'node:crypto';
import { HEADER } from '../../src/contract/headers';
import { PortInJourneys, createCommand, gpsiEndingIn } from '../support/portin/journey';

/**
 * Issue 15 items 4 and 5 over the real stack: what a refusal tells, and whether it is remembered. A refusal
 * reveals nothing of another partner's request; a refusal that depends on the moment is evaluated again
 * when the partner retries with the same correlation id.
 */
describe('port-in refusals (real stack)', () => {
  let j: PortInJourneys;

  beforeAll(async () => {
    j = await PortInJourneys.start();
  });

  afterAll(async () => {
    await j?.stop();
  });

  it("the CONFLICT for a number with another partner's request in progress names neither its status nor its partner", async () => {
    const gpsi = gpsiEndingIn('00');
    const mine = createCommand(gpsi);
    await j.send('CreatePortIn', mine, 'WC-1');
    const foreign = await j.send('CreatePortIn', createCommand(gpsi), 'WC-OTHER');
    expect(foreign.headers[HEADER.status]).toBe('CONFLICT');
    expect(foreign.value.error.problems).toEqual([{ path: 'gpsi', reason: '8P PortInInProgress' }]);
    const told = JSON.stringify(foreign.value.error);
    for (const secret of ['OPEN', 'WC-1', 'wholesale customer', mine.partnerTransactionId]) expect([secret, told.includes(secret)]).toEqual([secret, false]);
    // the owner is told which of its requests, and where it stands
    const own = await j.send('CreatePortIn', createCommand(gpsi), 'WC-1');
    expect(own.value.error.message).toContain(`request ${mine.partnerTransactionId} is OPEN`);
  });

  it('a CONFLICT that depends on the moment (a port in progress) is not remembered: the same correlation id succeeds once the port ended', async () => {
    const gpsi = gpsiEndingIn('00');
    const blocking = createCommand(gpsi);
    await j.send('CreatePortIn', blocking, 'WC-OTHER');
    const mine = createCommand(gpsi);
    const correlationId = randomUUID();
    const refused = await j.send('CreatePortIn', mine, 'WC-1', correlationId);
    expect(refused.value.error.problems).toEqual([{ path: 'gpsi', reason: '8P PortInInProgress' }]);
    await j.send('CancelPortIn', { gpsi }, 'WC-OTHER');
    await j.waitForStatus(gpsi, 'CANCELLED');
    const retried = await j.send('CreatePortIn', mine, 'WC-1', correlationId);
    expect(retried.value).toMatchObject({ status: 'Success', gpsi, partnerTransactionId: mine.partnerTransactionId, portStatus: 'OPEN' });
  });

  it('a NOT_FOUND is not remembered: a cancel sent before its create succeeds when retried with the same correlation id', async () => {
    const gpsi = gpsiEndingIn('00');
    const command = createCommand(gpsi);
    const correlationId = randomUUID();
    expect((await j.send('CancelPortIn', { partnerTransactionId: command.partnerTransactionId }, 'WC-1', correlationId)).headers[HEADER.status]).toBe('NOT_FOUND');
    await j.send('CreatePortIn', command);
    const retried = await j.send('CancelPortIn', { partnerTransactionId: command.partnerTransactionId }, 'WC-1', correlationId);
    expect(retried.value).toMatchObject({ status: 'Success', portStatus: 'CANCEL_PENDING' });
    // a change, once made, is remembered: the same correlation id gets the same reply, another payload a CONFLICT
    expect((await j.send('CancelPortIn', { partnerTransactionId: command.partnerTransactionId }, 'WC-1', correlationId)).value).toEqual(retried.value);
    const reused = await j.send('CancelPortIn', { gpsi }, 'WC-1', correlationId);
    expect([reused.headers[HEADER.status], reused.value.error.message]).toEqual(['CONFLICT', `X-Correlation-Id ${correlationId} was already used for a different CancelPortIn command`]);
  });

  it('a resubmitted CreatePortIn whose request was CANCELLED is a CONFLICT naming the cancelled request, not its first "Success, OPEN"', async () => {
    const gpsi = gpsiEndingIn('13');
    const command = createCommand(gpsi);
    expect((await j.send('CreatePortIn', command)).value).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
    await j.waitForStatus(gpsi, 'REJECTED');
    await j.send('CancelPortIn', { gpsi });
    const resubmitted = await j.send('CreatePortIn', command);
    expect(resubmitted.headers[HEADER.status]).toBe('CONFLICT');
    expect(resubmitted.value.error.message).toBe(
      `partnerTransactionId ${command.partnerTransactionId} names the port-in request for ${gpsi}, CANCELLED (CP Cancelled by the partner): a new port-in needs a new partnerTransactionId`,
    );
    expect(resubmitted.value.error.problems).toEqual([{ path: 'partnerTransactionId', reason: `names a CANCELLED port-in request (${gpsi})` }]);
  });
});
