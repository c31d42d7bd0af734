import { HEADER } from '../../src/contract/headers';
import { TopicReader, type Reply } from '../support/harness';
import { PortInJourneys, createCommand, gpsiEndingIn, statuses } from '../support/portin/journey';

/** Expiry with a shortened timer: a request left in REJECTED or RESOLUTION_REQUIRED is cancelled as expired. */
describe('port-in expiry over the real stack', () => {
  let j: PortInJourneys;
  let npRequests: TopicReader;
  const sentToNp: Reply[] = [];

  beforeAll(async () => {
    j = await PortInJourneys.start({ PORTIN_ABANDON_AFTER_SECONDS: '2', PORTIN_EXPIRY_SWEEP_INTERVAL_MS: '200' });
    npRequests = await TopicReader.start(j.config, [j.config.topics.npRequests], (r) => sentToNp.push(r));
  });

  afterAll(async () => {
    await npRequests?.stop();
    await j?.stop();
  });

  it('cancels an abandoned REJECTED request with reason "expired", cancels the subscription and tells the NP side', async () => {
    const gpsi = gpsiEndingIn('13');
    const command = createCommand(gpsi);
    await j.send('CreatePortIn', command);
    const rejected = await j.waitForStatus(gpsi, 'REJECTED');
    const events = await j.waitForStatus(gpsi, 'CANCELLED', '1', 15000);
    expect(statuses(events)).toEqual(['OPEN/v1', 'REJECTED/v1', 'CANCELLED/v1']);
    expect(events[2].value).toMatchObject({ reasonCode: 'EX', reasonDescription: 'expired', previousPortStatus: 'REJECTED', correlationId: null });
    const waited = Date.parse(events[2].value.eventTime) - Date.parse(rejected[1].value.eventTime);
    expect(waited).toBeGreaterThanOrEqual(2000);

    const query = await j.send('QueryPortIn', { partnerTransactionId: command.partnerTransactionId });
    expect(query.value).toMatchObject({ portStatus: 'CANCELLED', reasonCode: 'EX' });
    expect((await j.send('CheckPortInEligibility', { gpsi })).value.eligibilityStatus).toBe('Eligible');
    const deadline = Date.now() + 10000;
    while (!sentToNp.some((r) => r.key === gpsi && r.recordName === 'np.portin.v1.CancelPortRequest') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cancel = sentToNp.find((r) => r.key === gpsi && r.recordName === 'np.portin.v1.CancelPortRequest');
    expect(cancel?.value).toMatchObject({ gpsi, reasonCode: 'EX', portOrderVersion: 1 });
  });

  it('does not expire a request the partner updated in time', async () => {
    const gpsi = gpsiEndingIn('41');
    const command = createCommand(gpsi, { portInfo: { pwdPin: '0000' } });
    await j.send('CreatePortIn', command);
    await j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    const update = await j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '1357' } });
    expect(update.headers[HEADER.status]).toBe('Success');
    await j.waitForStatus(gpsi, 'COMPLETED', '2');
    await new Promise((resolve) => setTimeout(resolve, 3000)); // past the deadline of the RESOLUTION_REQUIRED stay
    expect(statuses(j.eventsFor(gpsi))).toEqual(['OPEN/v1', 'RESOLUTION_REQUIRED/v1', 'OPEN/v2', 'CONFIRMED/v2', 'COMPLETED/v2']);
  });
});
