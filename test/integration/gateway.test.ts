import { PARTNER_COMMAND_ROLES, partnerTopic } from '../../src/contract/partner-topics';
import { randomUUID } from 'node:crypto';
import { examplePortInOrder } from '../../dev/demo/journey';
import { TopicReader, type Reply } from '../support/harness';
import { eventually, gpsiEndingIn, startTestSimulator } from '../support/client';
import { testAuth, type TestAuth } from '../support/auth';
import { request, spawnGateway, startTestGateway, type HttpReply, type TestGateway } from '../support/gateway';
import { useService } from '../support/service-fixture';

/**
 * The HTTP gateway on the real stack: real HTTP (fetch), the service and the NP simulator as the other
 * integration tests start them, tokens signed by the test key for the two partners of TEST_CUSTOMERS.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the HTTP gateway on the real stack', () => {
  let auth: TestAuth;
  let gateway: TestGateway;
  let alpha: string;
  let beta: string;
  const commands: Reply[] = [];
  /** A subscription of alpha, active after a port-in over HTTP (beforeAll). */
  let gpsi: string;

  const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) => request(gateway.url, method, path, { token: alpha, ...options });
  const portStatus = async (number: string, status: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const reply = await call('GET', '/portins', { query: { gpsi: number } });
      if (reply.body?.portStatus === status) return reply;
      if (Date.now() > deadline) throw new Error(`${number}: still ${reply.body?.portStatus} (${reply.status})`);
      await sleep(200);
    }
  };
  /** Sent commands with this correlation id on the command topics (read from the beginning). */
  const sentWith = (correlationId: string) => commands.filter((c) => c.headers['X-Correlation-Id'] === correlationId);
  /** Proves nothing was sent for `refused`: a later command of the same number arrived and `refused` is not on the topic. */
  async function expectNothingSent(refused: string, number: string): Promise<void> {
    const marker = randomUUID();
    expect((await call('POST', '/portins/eligibility', { body: { gpsi: number }, headers: { 'X-Correlation-Id': marker } })).status).toBe(200);
    await eventually('the marker command', () => sentWith(marker)[0]);
    expect(sentWith(refused)).toEqual([]);
  }
  const remaining = async (number: string, subBalanceInstId: string) => {
    const reply = await call('GET', '/balances', { query: { gpsi: number } });
    return (reply.body.balances as any[]).flatMap((b) => b.subBalances).find((s) => s.subBalanceInstId === subBalanceInstId)?.remainingBalance as number;
  };

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => auth.env });

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    gateway = fx.track(await startTestGateway(fx.config, { GATEWAY_REPLY_TIMEOUT_MS: '3000', GATEWAY_BODY_LIMIT_BYTES: '8192' }));
    // every command topic a partner's request may be sent on: the shared ones and alpha's and beta's own (the default)
    const partnerCommandTopics = ['alpha', 'beta'].flatMap((id) => PARTNER_COMMAND_ROLES.map((role) => partnerTopic(fx.config.partnerTopicPrefix, id, role)));
    fx.track(await TopicReader.start(fx.config, [fx.config.topics.portinCommands, fx.config.topics.balanceCommands, ...partnerCommandTopics], (record) => void commands.push(record)));
    alpha = await auth.signer.sign('alpha');
    beta = await auth.signer.sign('beta');
    gpsi = gpsiEndingIn('42');
    expect((await call('POST', '/portins', { body: examplePortInOrder(gpsi) })).status).toBe(200);
    await portStatus(gpsi, 'COMPLETED');
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  it('serves every operation with the spec field names, and echoes or generates X-Correlation-Id', async () => {
    const eligibility = await call('POST', '/portins/eligibility', { body: { gpsi: gpsiEndingIn('42') }, headers: { 'X-Correlation-Id': 'corr-http-1' } });
    expect(eligibility).toMatchObject({ status: 200, body: { status: 'Success', eligibilityStatus: 'Eligible', reasonCode: null } });
    expect(eligibility.headers.get('x-correlation-id')).toBe('corr-http-1');
    const generated = await call('POST', '/portins/eligibility', { body: { gpsi: gpsiEndingIn('42') } });
    expect(generated.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);

    const byGpsi = await call('GET', '/portins', { query: { gpsi } });
    expect(byGpsi).toMatchObject({ status: 200, body: { status: 'Success', gpsi, portStatus: 'COMPLETED' } });
    expect((await call('GET', '/portins', { query: { partnerTransactionId: byGpsi.body.partnerTransactionId } })).body.gpsi).toBe(gpsi);
    expect((await call('GET', '/portins', { query: { portOrderId: byGpsi.body.portOrderId } })).body.gpsi).toBe(gpsi);

    const initial = await call('GET', '/balances', { query: { gpsi } });
    expect(initial).toMatchObject({ status: 200, body: { status: 'Success', balances: [expect.objectContaining({ balanceType: 'Main' })] } });
    const added = await call('POST', '/balances/buckets', { body: { gpsi, bucketRefId: ['2000002'] } });
    expect(added.status).toBe(200);
    expect(added.body.balances.flatMap((b: any) => b.subBalances).some((s: any) => s.bucketRefId === '2000002')).toBe(true);
    const swapped = await call('PUT', '/balances/primary-bucket', { body: { gpsi, bucketRefId: '1000002' } });
    expect(swapped.status).toBe(200);
    const data = swapped.body.balances.flatMap((b: any) => b.subBalances).find((s: any) => s.bucketRefId === '1000002' && s.subBalanceType === 'On-Net Data');
    const updated = await call('PATCH', '/balances', {
      body: { gpsi, balances: [{ subBalanceInstId: data.subBalanceInstId, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 100 }] },
    });
    expect(updated.status).toBe(200);
    expect(await remaining(gpsi, data.subBalanceInstId)).toBe(data.remainingBalance - 100);
    const cancelled = await call('POST', '/balances/buckets/cancellations', { body: { gpsi, bucketRefId: ['2000002'] } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.balances.flatMap((b: any) => b.subBalances).some((s: any) => s.bucketRefId === '2000002')).toBe(false);
    const history = await call('GET', '/balances/history', { query: { gpsi, limit: '3' } });
    expect(history).toMatchObject({ status: 200, body: { status: 'Success', gpsi } });
    expect(history.body.entries).toHaveLength(3);

    const resolving = gpsiEndingIn('42');
    const order = examplePortInOrder(resolving, { pwdPin: '0000' });
    expect((await call('POST', '/portins', { body: order })).body).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
    await portStatus(resolving, 'RESOLUTION_REQUIRED');
    const update = await call('PATCH', '/portins', { body: { partnerTransactionId: order.partnerTransactionId, gpsi: resolving, updatePortInfo: { pwdPin: '2468' } } });
    expect(update).toMatchObject({ status: 200, body: { status: 'Success' } });
    await portStatus(resolving, 'COMPLETED');

    const other = gpsiEndingIn('42');
    const second = examplePortInOrder(other, { pwdPin: '0000' });
    await call('POST', '/portins', { body: second });
    await portStatus(other, 'RESOLUTION_REQUIRED');
    const cancel = await call('POST', '/portins/cancellations', { body: { partnerTransactionId: second.partnerTransactionId, gpsi: other } });
    expect(cancel).toMatchObject({ status: 200, body: { status: 'Success', portStatus: 'CANCELLED' } });
  });

  it("answers the service's refusals with the registry's statuses and the ErrorReply body", async () => {
    const invalid = await call('POST', '/portins/eligibility', { body: { gpsi: '12ab' } });
    expect(invalid).toMatchObject({ status: 400, body: { status: 'BAD_REQUEST', operation: 'CheckPortInEligibility', error: { code: 'BAD_REQUEST' } } });
    expect(invalid.body.error.problems).toEqual(expect.arrayContaining([{ path: 'gpsi', reason: 'must match 11 to 15 digits' }]));

    const forbidden = await call('GET', '/balances', { query: { gpsi }, headers: { wholesaleCustomerId: 'beta-b1' } });
    expect(forbidden).toMatchObject({ status: 403, body: { status: 'FORBIDDEN', error: { code: 'FORBIDDEN' } } });
    const missing = await call('GET', '/portins', { query: { gpsi: gpsiEndingIn('42') } });
    expect(missing).toMatchObject({ status: 404, body: { status: 'NOT_FOUND', operation: 'QueryPortIn' } });
    const open = gpsiEndingIn('42');
    expect((await call('POST', '/portins', { body: examplePortInOrder(open) })).status).toBe(200);
    const conflict = await call('POST', '/portins', { body: examplePortInOrder(open) });
    expect(conflict).toMatchObject({ status: 409, body: { status: 'CONFLICT', operation: 'CreatePortIn' } });
  });

  it('refuses a bad token (401), malformed JSON (400), a body too large (413) and a body off the schema (400, every problem) without sending anything', async () => {
    const number = gpsiEndingIn('42');
    const cases: [string, HttpReply][] = [];
    const send = async (what: string, options: NonNullable<Parameters<typeof request>[3]>) => {
      const id = `refused-${what}-${randomUUID()}`;
      cases.push([id, await request(gateway.url, 'POST', '/portins', { token: alpha, ...options, headers: { 'X-Correlation-Id': id, ...options.headers } })]);
    };
    await send('no-token', { token: undefined, body: examplePortInOrder(number) });
    await send('forged', { token: `${alpha.slice(0, -4)}AAAA`, body: examplePortInOrder(number) });
    await send('expired', { token: await auth.signer.sign('alpha', { ttlSeconds: -120 }), body: examplePortInOrder(number) });
    await send('json', { rawBody: '{"gpsi": "1', body: undefined });
    await send('large', { body: { ...examplePortInOrder(number), subscriberId: 'x'.repeat(9000) } });
    await send('schema', { body: { gpsi: 42, bucketRefId: 'not-a-list' } });
    const [noToken, forged, expired, json, large, schema] = cases.map(([, reply]) => reply);
    for (const reply of [noToken, forged, expired]) expect(reply).toMatchObject({ status: 401, body: { status: 'UNAUTHORIZED', error: { code: 'UNAUTHORIZED' } } });
    expect(expired.body.error.message).toContain('expired');
    expect(json).toMatchObject({ status: 400, body: { status: 'BAD_REQUEST', operation: 'CreatePortIn', error: { problems: [{ path: '', reason: expect.stringContaining('JSON') }] } } });
    expect(large).toMatchObject({ status: 413, body: { status: 'PAYLOAD_TOO_LARGE' } });
    expect(schema.status).toBe(400);
    expect(schema.body.error.problems).toEqual(
      expect.arrayContaining([
        { path: 'partnerTransactionId', reason: 'is required' },
        { path: 'subscriberId', reason: 'is required' },
        { path: 'wholesalePlanId', reason: 'is required' },
        { path: 'portInfo', reason: 'is required' },
        { path: 'gpsi', reason: expect.stringContaining('string') },
        { path: 'bucketRefId', reason: expect.stringContaining('array') },
      ]),
    );
    for (const [id, reply] of cases) expect(reply.headers.get('x-correlation-id')).toBe(id);
    for (const [id] of cases) await expectNothingSent(id, number);
  });

  it('answers 504 naming the correlation id when the service is down; the retry with the same id is answered once and applied once', async () => {
    const before = await call('GET', '/balances', { query: { gpsi } });
    const sub = (before.body.balances as any[]).flatMap((b) => b.subBalances).find((s) => s.subBalanceType === 'On-Net Data');
    const change = { gpsi, balances: [{ subBalanceInstId: sub.subBalanceInstId, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 7 }] };
    const id = `retry-${randomUUID()}`;
    await fx.stopService();
    const timedOut = await call('PATCH', '/balances', { body: change, headers: { 'X-Correlation-Id': id } });
    expect(timedOut).toMatchObject({ status: 504, body: { status: 'GATEWAY_TIMEOUT', operation: 'UpdateBalances', error: { message: expect.stringContaining(id) } } });
    expect(timedOut.headers.get('x-correlation-id')).toBe(id);

    await fx.restart();
    const retried = await call('PATCH', '/balances', { body: change, headers: { 'X-Correlation-Id': id } });
    expect(retried).toMatchObject({ status: 200, body: { status: 'Success' } });
    const again = await call('PATCH', '/balances', { body: change, headers: { 'X-Correlation-Id': id } });
    expect(again.body).toEqual(retried.body);
    expect(await remaining(gpsi, sub.subBalanceInstId)).toBe(sub.remainingBalance - 7);
    const history = await call('GET', '/balances/history', { query: { gpsi, limit: '50' } });
    expect((history.body.entries as any[]).filter((e) => e.correlationId === id)).toHaveLength(1);
    expect(sentWith(id)).toHaveLength(3);
    // on alpha's own command topic: no other partner's open transaction holds it back (docs/contract.md)
    expect(new Set(sentWith(id).map((c) => c.topic))).toEqual(new Set([partnerTopic(fx.config.partnerTopicPrefix, 'alpha', 'balanceCommands')]));
  });

  it('keeps two partners apart: a token acts only for its own partner, and one partner flooding its limit leaves the other served', async () => {
    expect((await request(gateway.url, 'GET', '/portins', { token: beta, query: { gpsi } })).status).toBe(404);
    expect((await request(gateway.url, 'GET', '/balances', { token: beta, query: { gpsi } })).status).toBe(404);
    expect((await request(gateway.url, 'GET', '/balances', { token: beta, query: { gpsi }, headers: { wholesaleCustomerId: 'alpha' } })).status).toBe(403);

    const limited = await startTestGateway(fx.config, { GATEWAY_RATE_LIMIT_MAX: '10', GATEWAY_RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      const flood = await Promise.all(Array.from({ length: 30 }, () => request(limited.url, 'POST', '/portins/eligibility', { token: alpha, body: { gpsi: gpsiEndingIn('42') } })));
      const statuses = flood.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      const refused = flood.filter((r) => r.status === 429);
      expect(refused).toHaveLength(20);
      expect(refused[0].body).toMatchObject({ status: 'RATE_LIMITED', error: { code: 'RATE_LIMITED' } });
      expect(refused[0].headers.get('retry-after')).toBeTruthy();
      const others = await Promise.all(Array.from({ length: 5 }, () => request(limited.url, 'POST', '/portins/eligibility', { token: beta, body: { gpsi: gpsiEndingIn('42') } })));
      expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      for (const reply of refused) await expectNothingSent(reply.headers.get('x-correlation-id')!, gpsiEndingIn('42'));
    } finally {
      await limited.close();
    }
  });

  it("a gateway killed mid-request: the client's retry on another instance with the same id is answered once, applied once", async () => {
    const [first, second] = await Promise.all([spawnGateway(fx.config, 'gateway-a', { GATEWAY_REPLY_TIMEOUT_MS: '30000' }), spawnGateway(fx.config, 'gateway-b')]);
    try {
      const before = await call('GET', '/balances', { query: { gpsi } });
      const sub = (before.body.balances as any[]).flatMap((b) => b.subBalances).find((s) => s.subBalanceType === 'On-Net Voice');
      const change = { gpsi, balances: [{ subBalanceInstId: sub.subBalanceInstId, subBalanceType: 'On-Net Voice', unitType: sub.unitType, action: 'Subtract', quantity: 3 }] };
      const id = `killed-${randomUUID()}`;
      await fx.stopService(); // the reply cannot come before the kill
      const inFlight = request(first.url, 'PATCH', '/balances', { token: alpha, body: change, headers: { 'X-Correlation-Id': id } }).catch((error: Error) => error);
      await eventually('the command on its topic', () => sentWith(id)[0]);
      first.process.child.kill('SIGKILL');
      const outcome = await inFlight;
      expect('status' in outcome ? `answered ${outcome.status}` : String(outcome)).toContain('fetch failed'); // the connection died with the gateway
      await first.process.exited;

      await fx.restart();
      const retried = await request(second.url, 'PATCH', '/balances', { token: alpha, body: change, headers: { 'X-Correlation-Id': id } });
      expect(retried).toMatchObject({ status: 200, body: { status: 'Success' } });
      expect(await remaining(gpsi, sub.subBalanceInstId)).toBe(sub.remainingBalance - 3);
      const history = await call('GET', '/balances/history', { query: { gpsi, limit: '50' } });
      expect((history.body.entries as any[]).filter((e) => e.correlationId === id)).toHaveLength(1);
    } finally {
      await Promise.allSettled([first.close(), second.close()]);
    }
  });
});
