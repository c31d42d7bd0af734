import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import type { Reply } from '../support/harness';
import { createCommand, gpsiEndingIn, PortInJourneys } from '../support/portin/journey';
import { subscriberState } from '../support/redis-snapshot';

/**
 * Issue 6 for the port-in operations, over the real stack with the NP simulator, AUTH_MODE=jwt and the
 * hierarchy of test/support/auth.ts (alpha with brands alpha-b1, alpha-b2; beta).
 */
describe('port-in isolation by the customer hierarchy over the real stack', () => {
  let auth: TestAuth;
  let j: PortInJourneys;
  const token: Record<string, string> = {};

  beforeAll(async () => {
    auth = await testAuth();
    j = await PortInJourneys.start(auth.env);
    for (const node of ['alpha', 'alpha-b1', 'alpha-b2', 'beta']) token[node] = await auth.signer.sign(node);
  });

  afterAll(async () => {
    await j?.stop();
    auth?.cleanup();
  });

  const send = (operation: string, value: object, caller: string, header?: string) => j.send(operation, value, header ?? null, undefined, token[caller]);
  const status = (reply: Reply) => reply.headers[HEADER.status];

  /** A request of alpha-b1 that the old provider sent back for resolution (all-zero account number). */
  async function brandRequestInResolution() {
    const gpsi = gpsiEndingIn('42');
    const command = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, accountNo: '000000000000' } });
    expect(status(await send('CreatePortIn', command, 'alpha', 'alpha-b1'))).toBe('Success');
    await j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    const record = await waitForPortOrderId(gpsi);
    return { gpsi, partnerTransactionId: command.partnerTransactionId, portOrderId: record.portOrderId as string };
  }

  async function waitForPortOrderId(gpsi: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const reply = await send('QueryPortIn', { gpsi }, 'alpha-b1');
      if (reply.value.portOrderId) return reply.value;
      if (Date.now() > deadline) throw new Error(`no portOrderId for ${gpsi}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a brand acts on its own request with every operation', async () => {
    const request = await brandRequestInResolution();
    for (const keys of [{ gpsi: request.gpsi }, { partnerTransactionId: request.partnerTransactionId }, { portOrderId: request.portOrderId }]) {
      expect(status(await send('QueryPortIn', keys, 'alpha-b1'))).toBe('Success');
    }
    const update = await send('UpdatePortIn', { partnerTransactionId: request.partnerTransactionId, gpsi: request.gpsi, updatePortInfo: { accountNo: '000000000000' } }, 'alpha-b1');
    expect([status(update), update.value.portOrderVersion]).toEqual(['Success', '2']);
    await j.waitForStatus(request.gpsi, 'RESOLUTION_REQUIRED', '2');
    expect((await send('CancelPortIn', { partnerTransactionId: request.partnerTransactionId }, 'alpha-b1')).value).toMatchObject({ status: 'Success', portStatus: 'CANCELLED' });
  });

  it("a partner's root node sees and changes its brand's request, by every key", async () => {
    const request = await brandRequestInResolution();
    for (const keys of [{ gpsi: request.gpsi }, { partnerTransactionId: request.partnerTransactionId }, { portOrderId: request.portOrderId }]) {
      expect((await send('QueryPortIn', keys, 'alpha')).value).toMatchObject({ status: 'Success', gpsi: request.gpsi });
    }
    const update = await send('UpdatePortIn', { partnerTransactionId: request.partnerTransactionId, gpsi: request.gpsi, updatePortInfo: { accountNo: '000000000000' } }, 'alpha');
    expect(status(update)).toBe('Success');
    await j.waitForStatus(request.gpsi, 'RESOLUTION_REQUIRED', '2');
    expect(status(await send('CancelPortIn', { gpsi: request.gpsi }, 'alpha'))).toBe('Success');
  });

  it('a sibling brand or another partner gets FORBIDDEN or NOT_FOUND for every port-in operation; nothing changes', async () => {
    const request = await brandRequestInResolution();
    const before = await subscriberState(j.service.redis, j.config.redis.keyPrefix, request.gpsi);
    const eventsBefore = j.eventsFor(request.gpsi).length;
    const { gpsi, partnerTransactionId, portOrderId } = request;
    const operations: [string, object][] = [
      ['QueryPortIn', { gpsi }],
      ['QueryPortIn', { partnerTransactionId }],
      ['QueryPortIn', { portOrderId }],
      ['QueryPortIn', { gpsi, partnerTransactionId, portOrderId }],
      ['UpdatePortIn', { partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } }],
      ['CancelPortIn', { partnerTransactionId }],
      ['CancelPortIn', { gpsi }],
    ];
    const attempts: [string, string, string | undefined, string][] = [
      ['partner acting as the sibling brand', 'alpha', 'alpha-b2', 'NOT_FOUND'],
      ['the sibling brand', 'alpha-b2', undefined, 'NOT_FOUND'],
      ['another partner', 'beta', undefined, 'NOT_FOUND'],
      ['the sibling brand naming the owner', 'alpha-b2', 'alpha-b1', 'FORBIDDEN'],
      ['another partner naming the owner', 'beta', 'alpha-b1', 'FORBIDDEN'],
      ['another partner naming the partner', 'beta', 'alpha', 'FORBIDDEN'],
    ];
    for (const [who, caller, header, expected] of attempts) {
      const forbiddenToo: [string, object][] =
        expected === 'FORBIDDEN'
          ? [
              ['CreatePortIn', createCommand(gpsiEndingIn('42'))],
              ['CheckPortInEligibility', { gpsi }],
            ]
          : [];
      for (const [operation, value] of [...operations, ...forbiddenToo]) {
        const reply = await send(operation, value, caller, header);
        expect([who, operation, status(reply)]).toEqual([who, operation, expected]);
      }
    }
    expect(await subscriberState(j.service.redis, j.config.redis.keyPrefix, request.gpsi)).toEqual(before);
    expect(j.eventsFor(request.gpsi)).toHaveLength(eventsBefore);
  });
});
