import { HEADER } from '../../src/worker/envelope';
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
});
