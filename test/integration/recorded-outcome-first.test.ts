import { randomUUID } from 'node:crypto';
import { HEADER } from '../../src/contract/headers';
import { addBusinessDays } from '../../src/domain/portin/due-date';
import { balanceComponentsOf, BalanceClient } from '../support/balance-client';
import { TopicReader, type Reply } from '../support/harness';
import { PORTIN, createCommand, gpsiEndingIn } from '../support/portin/journey';
import { useService } from '../support/service-fixture';
import { createActiveSubscription } from '../support/subscriptions';

/**
 * Issue 46 item 4 over the real stack: a change's recorded outcome is read before anything that depends on
 * when it is handled. The service's clock is moved forward (records keep their real timestamps, outcomes
 * their real TTL in Redis), as after a crash and a late redelivery: a CreatePortIn made with the earliest
 * allowed due date, redelivered once that date is no longer allowed and again once its record is stale,
 * answers the identical Success and republishes the identical OPEN event; a stale UpdateBalances likewise.
 * A new command in the same situation is still refused.
 */
const HOUR_MS = 3600 * 1000;

describe('a redelivered change answers its recorded outcome, whatever the clock says now (real stack)', () => {
  let aheadMs = 0;
  const clock = () => new Date(Date.now() + aheadMs);
  const fx = useService({ requester: true, start: { clock } });
  const portinEvents: Reply[] = [];

  beforeAll(async () => {
    fx.track(await TopicReader.start(fx.config, [fx.config.topics.portinEvents], (event) => portinEvents.push(event)));
  });

  afterEach(() => {
    aheadMs = 0;
  });

  const send = (operation: string, value: object, correlationId = randomUUID()) =>
    fx.requester.send('portinCommands', PORTIN(operation), value, { headers: { [HEADER.wholesaleCustomerId]: 'WC-1' }, correlationId });

  it('CreatePortIn with the earliest due date, redelivered when that date is no longer allowed and when stale: the identical Success and OPEN event', async () => {
    const gpsi = gpsiEndingIn('15');
    // the earliest allowed as the worker sees it, with the half minute the command may take to reach it
    const desiredDueDate = new Date(addBusinessDays(new Date(), 1).getTime() + 30_000).toISOString();
    const command = createCommand(gpsi, { desiredDueDate });
    const correlationId = randomUUID();
    const first = await send('CreatePortIn', command, correlationId);
    expect(first.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', desiredDueDate });

    aheadMs = HOUR_MS; // the due date is an hour too early now
    const tooEarly = await send('CreatePortIn', createCommand(gpsiEndingIn('15'), { desiredDueDate }));
    expect([tooEarly.headers[HEADER.status], tooEarly.value.error.problems]).toEqual(['BAD_REQUEST', [{ path: 'desiredDueDate', reason: expect.stringMatching(/^must be no earlier than /) }]]);
    const redelivered = await send('CreatePortIn', command, correlationId);
    expect([redelivered.headers[HEADER.status], redelivered.value]).toEqual(['Success', first.value]);

    aheadMs = 23.5 * HOUR_MS; // past the 23 h after which a record is stale (a 24 h TTL less its 1 h margin)
    const fresh = await send('CreatePortIn', createCommand(gpsiEndingIn('15'), { desiredDueDate }));
    expect(fresh.value.error.code).toBe('STALE_COMMAND');
    const stale = await send('CreatePortIn', command, correlationId);
    expect([stale.headers[HEADER.status], stale.value]).toEqual(['Success', first.value]);

    // the OPEN event each time, the same record: its CloudEvents id and bytes
    for (const deadline = Date.now() + 10_000; portinEvents.filter((e) => e.key === gpsi).length < 3 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 50));
    const opens = portinEvents.filter((e) => e.key === gpsi);
    expect(opens.map((e) => e.value.portStatus)).toEqual(['OPEN', 'OPEN', 'OPEN']);
    expect(new Set(opens.map((e) => `${e.headers.ce_id} ${e.rawValue?.toString('base64')}`)).size).toBe(1);
  });

  it('a stale UpdateBalances already applied replays its reply instead of STALE_COMMAND, and changes nothing again', async () => {
    const client = fx.track(await BalanceClient.start(fx.config));
    const sub = await createActiveSubscription(balanceComponentsOf(fx.service, fx.config).subscriptions, { wholesaleCustomerId: 'alpha' });
    const add = { gpsi: sub.gpsi, balances: [{ subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: 1, unitType: 'MB' }] };
    const correlationId = randomUUID();
    const first = await client.send('UpdateBalances', add, 'alpha', correlationId);
    expect(first.value.status).toBe('Success');
    aheadMs = 23.5 * HOUR_MS;
    const stale = await client.send('UpdateBalances', add, 'alpha', correlationId);
    expect([stale.headers[HEADER.status], stale.value]).toEqual(['Success', first.value]);
    const fresh = await client.send('UpdateBalances', add, 'alpha');
    expect(fresh.value.error.code).toBe('STALE_COMMAND');
  });
});
