import { randomUUID } from 'node:crypto';
import { RequestTimeoutError, ServiceReplyError, WholesaleClient, type ContractEvent, type EventSubscription } from '../../src/client';
import { startTestService, testConfig, TestRequester, TopicReader, type Reply } from '../support/harness';
import { clientConfigFor, eventually, gpsiEndingIn, startTestSimulator } from '../support/client';
import { examplePortInOrder } from '../../dev/demo/journey';
import { useService } from '../support/service-fixture';

const CUSTOMER = 'WC-CLIENT';

describe('WholesaleClient against the real stack', () => {
  let client: WholesaleClient;
  let events: EventSubscription;
  const seen: ContractEvent[] = [];

  const fx = useService();

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    client = fx.track(await WholesaleClient.connect({ config: clientConfigFor(fx.config), wholesaleCustomerId: CUSTOMER }));
    events = client.subscribeEvents({ onEvent: (event) => void seen.push(event) });
    await events.ready;
  });

  const portinEvents = (gpsi: string) => seen.flatMap((e) => (e.known && e.recordName === 'wholesale.portin.v1.PortInActivationEvent' && e.value.gpsi === gpsi ? [e] : []));
  const waitForPortStatus = (gpsi: string, status: string) => eventually(`${status} for ${gpsi}`, () => portinEvents(gpsi).find((e) => e.value.portStatus === status));

  it('checks eligibility right after connecting (the reply consumer is positioned before the first send)', async () => {
    const fresh = await WholesaleClient.connect({ config: clientConfigFor(fx.config) });
    try {
      const reply = await fresh.checkPortInEligibility({ gpsi: gpsiEndingIn('42') });
      expect(reply).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible', reasonCode: null });
      expect(reply.checkedDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    } finally {
      await fresh.close();
    }
  });

  it('raises an error reply as ServiceReplyError carrying the code, the message and every field problem', async () => {
    const error = await client.checkPortInEligibility({ gpsi: '12ab' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceReplyError);
    const reply = error as ServiceReplyError;
    expect(reply.code).toBe('BAD_REQUEST');
    expect(reply.serviceMessage).toContain('problem');
    expect(reply.problems).toEqual(
      expect.arrayContaining([
        { path: 'gpsi', reason: 'must be at least 11 characters' },
        { path: 'gpsi', reason: 'must match 11 to 15 digits' },
      ]),
    );
  });

  it('runs a port-in to completion, sees its PortInActivationEvents with CloudEvents headers, then manages the balances', async () => {
    const gpsi = gpsiEndingIn('42');
    const order = examplePortInOrder(gpsi);
    const created = await client.createPortIn(order);
    expect(created).toMatchObject({ status: 'Success', gpsi, partnerTransactionId: order.partnerTransactionId, portStatus: 'OPEN' });

    const completed = await waitForPortStatus(gpsi, 'COMPLETED');
    expect(completed.cloudEvent).toMatchObject({
      specversion: '1.0',
      type: 'wholesale.portin.v1.PortInActivationEvent',
      subject: gpsi,
      dataschema: expect.stringMatching(/\/schemas\/ids\/\d+$/),
    });
    expect(completed.key).toBe(gpsi);
    expect(portinEvents(gpsi).map((e) => e.value.portStatus)).toEqual(expect.arrayContaining(['OPEN', 'CONFIRMED', 'COMPLETED']));
    const activated = await eventually('SubscriptionActivated', () => seen.find((e) => e.known && e.recordName === 'wholesale.balance.v1.SubscriptionActivated' && e.value.gpsi === gpsi));
    expect(activated.topic).toBe(fx.config.topics.balanceEvents);

    const byGpsi = await client.queryPortIn({ gpsi });
    expect(byGpsi).toMatchObject({ status: 'Success', gpsi, portStatus: 'COMPLETED', partnerTransactionId: order.partnerTransactionId });
    const byTransaction = await client.queryPortIn({ partnerTransactionId: order.partnerTransactionId });
    expect(byTransaction.gpsi).toBe(gpsi);
    const byOrder = await client.queryPortIn({ portOrderId: byGpsi.portOrderId });
    expect(byOrder.partnerTransactionId).toBe(order.partnerTransactionId);

    const initial = await client.queryBalances({ gpsi });
    expect(initial.status).toBe('Success');
    const added = await client.addBuckets({ gpsi, bucketRefId: ['2000002'] });
    expect(added.status).toBe('Success');
    expect(added.balances.flatMap((b) => b.subBalances).some((s) => s.bucketRefId === '2000002')).toBe(true);
    const swapped = await client.swapPrimaryBucket({ gpsi, bucketRefId: '1000002' });
    expect(swapped.balances.flatMap((b) => b.subBalances).some((s) => s.bucketRefId === '1000002')).toBe(true);
    const data = swapped.balances.flatMap((b) => b.subBalances).find((s) => s.bucketRefId === '1000002' && s.subBalanceType === 'On-Net Data');
    expect(data).toBeDefined();
    const updated = await client.updateBalances({
      gpsi,
      balances: [{ subBalanceInstId: data!.subBalanceInstId, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 100 }],
    });
    const after = updated.balances.flatMap((b) => b.subBalances).find((s) => s.subBalanceInstId === data!.subBalanceInstId);
    expect(after?.remainingBalance).toBe(data!.remainingBalance - 100);
    const cancelled = await client.cancelBuckets({ gpsi, bucketRefId: ['2000002'] });
    expect(cancelled.balances.flatMap((b) => b.subBalances).some((s) => s.bucketRefId === '2000002')).toBe(false);
    const queried = await client.queryBalances({ gpsi });
    expect(queried.balances).toEqual(cancelled.balances);
    const history = await client.queryBalanceHistory({ gpsi, limit: 3 });
    expect(history.status).toBe('Success');
    expect(history.entries).toHaveLength(3);

    const billing = seen.filter((e) => e.topic === fx.config.topics.balanceEvents && e.key === gpsi).map((e) => e.recordName);
    await eventually(
      'the billing events of the journey',
      () =>
        ['BucketsAdded', 'PrimaryBucketSwapped', 'BalancesUpdated', 'BucketsCancelled'].every((name) => seen.some((e) => e.recordName === `wholesale.balance.v1.${name}` && e.key === gpsi)) ||
        undefined,
    );
    expect(billing[0]).toBe('wholesale.balance.v1.SubscriptionActivated');
  });

  it('updates a port-in the old provider asked to resolve, and cancels another', async () => {
    const gpsi = gpsiEndingIn('42');
    const order = examplePortInOrder(gpsi, { pwdPin: '0000' });
    await client.createPortIn(order);
    await waitForPortStatus(gpsi, 'RESOLUTION_REQUIRED');
    const updated = await client.updatePortIn({ partnerTransactionId: order.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } });
    expect(updated.status).toBe('Success');
    await waitForPortStatus(gpsi, 'COMPLETED');

    const other = gpsiEndingIn('42');
    const second = examplePortInOrder(other, { pwdPin: '0000' });
    await client.createPortIn(second);
    await waitForPortStatus(other, 'RESOLUTION_REQUIRED');
    const cancelled = await client.cancelPortIn({ partnerTransactionId: second.partnerTransactionId, gpsi: other });
    expect(cancelled).toMatchObject({ status: 'Success', portStatus: 'CANCELLED' });
    expect((await client.queryPortIn({ gpsi: other })).portStatus).toBe('CANCELLED');
  });

  it('ignores replies it did not ask for: another requester on the same reply topic does not disturb it', async () => {
    const other = await TestRequester.start(fx.config);
    try {
      const foreign = Array.from({ length: 20 }, () => other.send('portinCommands', 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: gpsiEndingIn('42') }));
      const own = Array.from({ length: 20 }, () => client.checkPortInEligibility({ gpsi: gpsiEndingIn('42') }));
      const [theirs, ours] = await Promise.all([Promise.all(foreign), Promise.all(own)]);
      expect(theirs.every((r) => r.value.eligibilityStatus === 'Eligible')).toBe(true);
      expect(ours.every((r) => r.eligibilityStatus === 'Eligible')).toBe(true);
      expect(client.inFlight).toBe(0);
    } finally {
      await other.stop();
    }
  });

  it('puts the correlation id, the customer and the bearer token of its tokenProvider in the headers, and keys by gpsi', async () => {
    let issued = 0;
    const signed = await WholesaleClient.connect({ config: clientConfigFor(fx.config), tokenProvider: async () => `token-${++issued}` });
    const commands: Reply[] = [];
    const reader = await TopicReader.start(fx.config, [fx.config.topics.portinCommands], (record) => commands.push(record));
    try {
      const gpsi = gpsiEndingIn('42');
      await signed.checkPortInEligibility({ gpsi }, { correlationId: `corr-${gpsi}`, wholesaleCustomerId: 'WC-BRAND-7' });
      const sent = await eventually('the command on its topic', () => commands.find((c) => c.headers['X-Correlation-Id'] === `corr-${gpsi}`));
      expect(sent.key).toBe(gpsi);
      expect(sent.recordName).toBe('wholesale.portin.v1.CheckPortInEligibility');
      expect(sent.headers).toMatchObject({ Authorization: 'Bearer token-1', wholesaleCustomerId: 'WC-BRAND-7' });
    } finally {
      await reader.stop();
      await signed.close();
    }
  });

  it('iterates events with an async iterator from the beginning of the topics with a group of its own', async () => {
    const subscription = client.subscribeEvents({ fromBeginning: true, groupId: `it-${randomUUID()}` });
    const received: ContractEvent[] = [];
    for await (const event of subscription) {
      received.push(event);
      if (received.length === 3) break; // `break` closes the subscription
    }
    expect(received.every((e) => e.known)).toBe(true);
    expect(received[0]?.cloudEvent.id).toEqual(expect.any(String));
  });
});

describe('WholesaleClient when nobody answers', () => {
  it('raises RequestTimeoutError after the call timeout and ignores the late reply', async () => {
    const config = testConfig();
    const service = await startTestService(config); // registers the contract's subjects, then goes away
    await service.stop();
    const client = await WholesaleClient.connect({ config: clientConfigFor(config, { CLIENT_TIMEOUT_MS: '1500' }) });
    try {
      const started = Date.now();
      const error = await client.checkPortInEligibility({ gpsi: gpsiEndingIn('42') }).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect((error as RequestTimeoutError).timeoutMs).toBe(1500);
      expect(elapsed).toBeGreaterThanOrEqual(1450);
      expect(elapsed).toBeLessThan(4000);
      const perCall = await client.checkPortInEligibility({ gpsi: gpsiEndingIn('42') }, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect((perCall as RequestTimeoutError).timeoutMs).toBe(300);

      // The service comes back and answers the two old commands: nobody waits for them any more.
      const revived = await startTestService(config);
      try {
        const reply = await client.checkPortInEligibility({ gpsi: gpsiEndingIn('42') }, { timeoutMs: 30000 });
        expect(reply.eligibilityStatus).toBe('Eligible');
        expect(client.inFlight).toBe(0);
      } finally {
        await revived.stop();
      }
    } finally {
      await client.close();
    }
  });
});
