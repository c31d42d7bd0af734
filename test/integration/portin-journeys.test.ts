import { HEADER } from '../../src/contract/headers';
import { PortInJourneys, createCommand, gpsiEndingIn, statuses } from '../support/portin/journey';
import { redisTopologies } from '../support/redis-topologies';

/**
 * Issue 3's journeys over the real stack: commands through Kafka, the NP simulator answering on the NP
 * topics, and the PortInActivationEvents read back from the events topic, in order. Once on a single
 * Redis, once on a Redis Cluster (the partner-transaction and port-order indexes live in other slots).
 */
describe.each(redisTopologies())('port-in journeys over the real stack with the NP simulator (Redis $name)', (topology) => {
  let j: PortInJourneys;

  beforeAll(async () => {
    j = await PortInJourneys.start(await topology.env());
  });

  afterAll(async () => {
    await j?.stop();
    await topology.stop();
  });

  it('create → OPEN → CONFIRMED → COMPLETED, the subscription becomes active', async () => {
    const gpsi = gpsiEndingIn('21');
    const command = createCommand(gpsi);
    const reply = await j.send('CreatePortIn', command);
    expect(reply.recordName).toBe('wholesale.portin.v1.CreatePortInReply');
    expect(reply.value).toMatchObject({ status: 'Success', gpsi, partnerTransactionId: command.partnerTransactionId, portStatus: 'OPEN', portOrderVersion: '1' });

    const events = await j.waitForStatus(gpsi, 'COMPLETED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'COMPLETED/v1']);
    const completed = events[2];
    expect(completed.value).toMatchObject({ gpsi, partnerTransactionId: command.partnerTransactionId, subscriberId: 'SUB-1', wholesaleCustomerId: 'WC-1', previousPortStatus: 'CONFIRMED' });
    expect(completed.value.portOrderId).toMatch(/^PO-/);
    // the events the NP side caused carry the correlation id of the create they answer
    expect(events.map((e) => e.value.correlationId)).toEqual([reply.headers[HEADER.correlationId], reply.headers[HEADER.correlationId], reply.headers[HEADER.correlationId]]);
    expect(completed.headers).toMatchObject({
      ce_specversion: '1.0',
      ce_id: completed.value.eventId,
      ce_subject: gpsi,
      ce_type: 'wholesale.portin.v1.PortInActivationEvent',
      'content-type': 'application/avro',
    });
    expect(new Set(events.map((e) => e.headers.ce_id)).size).toBe(3);

    const eligibility = await j.send('CheckPortInEligibility', { gpsi });
    expect(eligibility.value).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8A' });
    const balances = await j.requester.send('balanceCommands', 'wholesale.balance.v1.QueryBalances', { gpsi }, { headers: { [HEADER.wholesaleCustomerId]: 'WC-1' } });
    expect(balances.value.status).toBe('Success');
  });

  it('resolution required (8C) → update (version 2) → CONFIRMED → COMPLETED', async () => {
    const gpsi = gpsiEndingIn('22');
    const command = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, pwdPin: '0000' } });
    await j.send('CreatePortIn', command);
    const stuck = await j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    expect(statuses(stuck)).toEqual(['OPEN/v1', 'RESOLUTION_REQUIRED/v1']);
    expect(stuck[1].value).toMatchObject({ reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' });

    const update = await j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468', contact: { businessName: 'ACME' } } });
    expect(update.recordName).toBe('wholesale.portin.v1.UpdatePortInReply');
    expect(update.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', portOrderVersion: '2' });

    const events = await j.waitForStatus(gpsi, 'COMPLETED', '2');
    expect(statuses(events)).toEqual(['OPEN/v1', 'RESOLUTION_REQUIRED/v1', 'OPEN/v2', 'CONFIRMED/v2', 'COMPLETED/v2']);
    expect(events[2].value.correlationId).toBe(update.headers[HEADER.correlationId]);
    const record = await j.send('QueryPortIn', { gpsi });
    expect(record.value).toMatchObject({ portStatus: 'COMPLETED', portOrderVersion: '2', reasonCode: null });
    expect(record.value.portInfo.contact).toMatchObject({ businessName: 'ACME', firstName: 'Ada' });
    expect(record.value.portInfo.pwdPin).toBe('****');
  });

  it('an account number of all zeros needs resolution with the account-number code', async () => {
    const gpsi = gpsiEndingIn('23');
    await j.send('CreatePortIn', createCommand(gpsi, { portInfo: { accountNo: '000000' } }));
    const events = await j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    expect(events[1].value).toMatchObject({ reasonCode: '8D', reasonDescription: 'Account number required or incorrect' });
  });

  it('a delayed port goes OPEN → DELAYED → CONFIRMED → COMPLETED', async () => {
    const gpsi = gpsiEndingIn('14');
    await j.send('CreatePortIn', createCommand(gpsi));
    const events = await j.waitForStatus(gpsi, 'COMPLETED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'DELAYED/v1', 'CONFIRMED/v1', 'COMPLETED/v1']);
    expect(events[1].value).toMatchObject({ reasonCode: '1N' });
  });

  it('rejected → cancel: CANCELLED, and the number may be ported again', async () => {
    const gpsi = gpsiEndingIn('13');
    const command = createCommand(gpsi);
    await j.send('CreatePortIn', command);
    await j.waitForStatus(gpsi, 'REJECTED');
    const cancel = await j.send('CancelPortIn', { partnerTransactionId: command.partnerTransactionId, gpsi });
    expect(cancel.recordName).toBe('wholesale.portin.v1.CancelPortInReply');
    expect(cancel.value).toMatchObject({ status: 'Success', portStatus: 'CANCELLED' });
    const events = await j.waitForStatus(gpsi, 'CANCELLED');
    expect(statuses(events)).toEqual(['OPEN/v1', 'REJECTED/v1', 'CANCELLED/v1']);
    expect(events[1].value).toMatchObject({ reasonCode: '7A' });
    expect(events[2].value).toMatchObject({ reasonCode: 'CP', correlationId: cancel.headers[HEADER.correlationId] });
    expect((await j.send('CheckPortInEligibility', { gpsi })).value.eligibilityStatus).toBe('Eligible');
  });

  it('every illegal command is a CONFLICT naming the current status', async () => {
    const expectConflict = async (operation: string, value: object, status: string) => {
      const reply = await j.send(operation, value);
      expect(reply.headers[HEADER.status]).toBe('CONFLICT');
      expect(reply.value.error.message).toContain(`is ${status}`);
      expect(reply.value.error.problems).toContainEqual({ path: 'portStatus', reason: `is ${status}` });
    };
    // OPEN: the simulated old provider never answers numbers ending in 00
    const open = gpsiEndingIn('00');
    const openCommand = createCommand(open);
    await j.send('CreatePortIn', openCommand);
    await j.waitForRecord(open, (r) => typeof r.portOrderId === 'string');
    await expectConflict('UpdatePortIn', { partnerTransactionId: openCommand.partnerTransactionId, gpsi: open, updatePortInfo: { pwdPin: '1' } }, 'OPEN');

    const done = gpsiEndingIn('31');
    const doneCommand = createCommand(done);
    await j.send('CreatePortIn', doneCommand);
    await j.waitForStatus(done, 'COMPLETED');
    await expectConflict('UpdatePortIn', { partnerTransactionId: doneCommand.partnerTransactionId, gpsi: done, updatePortInfo: { pwdPin: '1' } }, 'COMPLETED');
    await expectConflict('CancelPortIn', { partnerTransactionId: doneCommand.partnerTransactionId }, 'COMPLETED');

    const cancelled = gpsiEndingIn('13');
    const cancelledCommand = createCommand(cancelled);
    await j.send('CreatePortIn', cancelledCommand);
    await j.waitForStatus(cancelled, 'REJECTED');
    await j.send('CancelPortIn', { gpsi: cancelled });
    await expectConflict('CancelPortIn', { gpsi: cancelled }, 'CANCELLED');
    await expectConflict('UpdatePortIn', { partnerTransactionId: cancelledCommand.partnerTransactionId, gpsi: cancelled, updatePortInfo: { pwdPin: '1' } }, 'CANCELLED');
    expect(statuses(j.eventsFor(open))).toEqual(['OPEN/v1']);
  });

  it('a duplicate create with the same payload gets the first reply; with another payload a CONFLICT', async () => {
    const gpsi = gpsiEndingIn('00');
    const command = createCommand(gpsi);
    const first = await j.send('CreatePortIn', command);
    const again = await j.send('CreatePortIn', command);
    expect(again.value).toEqual(first.value);
    const changed = await j.send('CreatePortIn', { ...command, subscriberId: 'SUB-2' });
    expect(changed.headers[HEADER.status]).toBe('CONFLICT');
    expect(changed.value.error.problems).toEqual([{ path: 'partnerTransactionId', reason: 'is already used by another port-in request' }]);
    await j.waitForRecord(gpsi, (r) => typeof r.portOrderId === 'string');
    expect(statuses(j.eventsFor(gpsi))).toEqual(['OPEN/v1']);
  });

  it('a second create for a number in progress is a CONFLICT naming the existing request', async () => {
    const gpsi = gpsiEndingIn('00');
    const first = createCommand(gpsi);
    await j.send('CreatePortIn', first);
    const second = await j.send('CreatePortIn', createCommand(gpsi));
    expect(second.headers[HEADER.status]).toBe('CONFLICT');
    expect(second.value.error.message).toContain(`request ${first.partnerTransactionId} is OPEN`);
    expect(second.value.error.problems[0]).toMatchObject({ path: 'gpsi' });
    expect(second.value.error.problems[0].reason).toMatch(/^8P PortInInProgress/);
    // another customer learns that a port is in progress, not whose nor where it stands (portin-refusals.test.ts)
    const foreign = await j.send('CreatePortIn', createCommand(gpsi), 'WC-OTHER');
    expect(foreign.value.error.problems).toEqual([{ path: 'gpsi', reason: '8P PortInInProgress' }]);
    expect((await j.send('CheckPortInEligibility', { gpsi })).value).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8P' });
  });

  it('query by gpsi, partnerTransactionId and portOrderId answers the same record, secrets masked', async () => {
    const gpsi = gpsiEndingIn('00');
    const command = createCommand(gpsi);
    await j.send('CreatePortIn', command);
    const byGpsi = await j.waitForRecord(gpsi, (r) => typeof r.portOrderId === 'string');
    expect(byGpsi).toMatchObject({
      status: 'Success',
      gpsi,
      partnerTransactionId: command.partnerTransactionId,
      portOrderVersion: '1',
      subscriberId: 'SUB-1',
      portStatus: 'OPEN',
      portDirection: 'PORT_IN',
      newNetworkServiceProvider: 'WHOLESALE-NNSP',
      newLocalServiceProvider: 'WHOLESALE-NLSP',
      oldNetworkServiceProvider: expect.stringMatching(/^ONSP-/),
    });
    expect(byGpsi.portInfo).toMatchObject({ pwdPin: '****', accountNo: '****9012', authorizationName: 'Ada Lovelace' });
    expect(JSON.stringify(byGpsi)).not.toContain('4321');
    expect(JSON.stringify(byGpsi)).not.toContain('123456789012');
    const byPtid = await j.send('QueryPortIn', { partnerTransactionId: command.partnerTransactionId });
    const byOrder = await j.send('QueryPortIn', { portOrderId: byGpsi.portOrderId as string });
    const all = await j.send('QueryPortIn', { gpsi, partnerTransactionId: command.partnerTransactionId, portOrderId: byGpsi.portOrderId as string });
    expect(byPtid.value).toEqual(byGpsi);
    expect(byOrder.value).toEqual(byGpsi);
    expect(all.value).toEqual(byGpsi);
    const mismatch = await j.send('QueryPortIn', { gpsi: gpsiEndingIn('99'), partnerTransactionId: command.partnerTransactionId });
    expect(mismatch.headers[HEADER.status]).toBe('NOT_FOUND');
  });

  it('another wholesale customer finds nothing: query, update and cancel are NOT_FOUND', async () => {
    const gpsi = gpsiEndingIn('13');
    const command = createCommand(gpsi);
    await j.send('CreatePortIn', command);
    await j.waitForStatus(gpsi, 'REJECTED');
    for (const [operation, value] of [
      ['QueryPortIn', { gpsi }],
      ['QueryPortIn', { partnerTransactionId: command.partnerTransactionId }],
      ['UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '1' } }],
      ['CancelPortIn', { gpsi }],
    ] as const) {
      const reply = await j.send(operation, value, 'WC-OTHER');
      expect([operation, reply.headers[HEADER.status]]).toEqual([operation, 'NOT_FOUND']);
    }
    expect((await j.send('QueryPortIn', { gpsi })).value.portStatus).toBe('REJECTED');
  });

  it('answers BAD_REQUEST with every problem of a CreatePortIn at once, catalog included', async () => {
    const reply = await j.send('CreatePortIn', createCommand('123', { wholesalePlanId: 'NO-SUCH-PLAN', bucketRefId: ['1000001', 'nope'], billCycleStartDay: 29, eSIMDeliveryMethod: 'SMS' }));
    expect(reply.headers[HEADER.status]).toBe('BAD_REQUEST');
    expect(reply.value.error.problems.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(['gpsi', 'billCycleStartDay', 'eSIMDeliveryMethod', 'wholesalePlanId', 'bucketRefId[0]', 'bucketRefId[1]']),
    );
  });
});
