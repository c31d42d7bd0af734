import { randomUUID } from 'node:crypto';
import type { BalanceComponents } from '../../src/app/balance';
import { createDevSigner, type DevSigner } from '../../dev/keys/dev-signer';
import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { TopicReader, type Reply } from '../support/harness';
import { redisSnapshot, subscriberState } from '../support/redis-snapshot';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useService } from '../support/service-fixture';

/**
 * Issue 6 over the real stack, AUTH_MODE=jwt: who may send commands (tokens), what they may act on
 * (the customer hierarchy of test/support/auth.ts), and that refused commands change nothing.
 */
describe('authentication and customer isolation over the real stack', () => {
  let auth: TestAuth;
  let balance: BalanceComponents;
  let stranger: DevSigner;
  let strangerDir: string;
  const events: Reply[] = [];

  beforeAll(async () => {
    auth = await testAuth();
    strangerDir = mkdtempSync(join(tmpdir(), 'stranger-keys-'));
    stranger = await createDevSigner({ dir: strangerDir });
  });

  const fx = useService({ env: () => auth.env, requester: true });

  beforeAll(async () => {
    fx.track(await TopicReader.start(fx.config, [fx.config.topics.balanceEvents, fx.config.topics.portinEvents], (e) => events.push(e)));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  afterAll(async () => {
    auth?.cleanup();
    rmSync(strangerDir, { recursive: true, force: true });
  });

  const send = (operation: string, command: object, token: string | null, customer?: string, correlationId = randomUUID()) =>
    fx.requester.send('balanceCommands', balanceRecord(operation), command, {
      token,
      correlationId,
      headers: customer === undefined ? {} : { [HEADER.wholesaleCustomerId]: customer },
    });
  /** Sends without awaiting a reply: a command without valid credentials is answered on no topic. */
  const dispatch = (operation: string, command: object, token: string | null, customer?: string, correlationId = randomUUID()) =>
    fx.requester.dispatch('balanceCommands', balanceRecord(operation), command, {
      token,
      correlationId,
      headers: customer === undefined ? {} : { [HEADER.wholesaleCustomerId]: customer },
    });
  const status = (reply: Reply) => reply.headers[HEADER.status];
  const subscriptionOf = (owner: string) => createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: owner, bucketRefIds: ['2000002'] });
  const tokenFor = (customer: string) => auth.signer.sign(customer);

  const updateOf = (sub: TestSubscription) => ({
    gpsi: sub.gpsi,
    balances: [{ subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 1, unitType: 'MB' }],
  });
  /** One command of every balance operation against `sub`, in an order where each succeeds for its owner. */
  const everyOperation = (sub: TestSubscription): [string, object][] => [
    ['QueryBalances', { gpsi: sub.gpsi }],
    ['UpdateBalances', updateOf(sub)],
    ['QueryBalanceHistory', { gpsi: sub.gpsi, limit: 5 }],
    ['AddBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000001'] }],
    ['CancelBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000002'] }],
    ['SwapPrimaryBucket', { gpsi: sub.gpsi, bucketRefId: '1000002' }],
  ];
  const businessState = (sub: TestSubscription) => subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi);

  describe('authentication', () => {
    it('no token, a malformed one, a bad signature, an expired token, a wrong audience or issuer → refused: nothing applied, no event, no reply on any topic', async () => {
      const sub = await subscriptionOf('alpha-b1');
      const before = await redisSnapshot(fx.service.redis, `${fx.config.redis.keyPrefix}*`);
      const refused: [string, string | null][] = [
        ['no token', null],
        ['malformed', 'not-a-jwt'],
        ['bad signature', await stranger.sign('alpha')],
        ['expired', await auth.signer.sign('alpha', { ttlSeconds: -120 })],
        ['not valid yet', await auth.signer.sign('alpha', { notBeforeSeconds: 600 })],
        ['wrong audience', await auth.signer.sign('alpha', { audience: 'another-service' })],
        ['wrong issuer', await auth.signer.sign('alpha', { issuer: 'https://evil.example' })],
      ];
      const correlationIds: string[] = [];
      for (const [, token] of refused) {
        for (const [operation, command] of everyOperation(sub)) {
          correlationIds.push(await dispatch(operation, command, token, 'alpha-b1'));
        }
      }
      // A valid query afterwards (same number: same partition, handled after them) is answered, so the refused
      // ones were handled by then: no token was verified, so no partner is known and nobody is answered.
      expect(status(await send('QueryBalances', { gpsi: sub.gpsi }, await tokenFor('alpha'), 'alpha-b1'))).toBe('Success');
      expect(correlationIds.map((id) => fx.requester.unclaimed(id))).toEqual(correlationIds.map(() => undefined));
      // Not a key was written: no balance change, no ledger entry, no remembered reply, no outcome record.
      expect(await redisSnapshot(fx.service.redis, `${fx.config.redis.keyPrefix}*`)).toEqual(before);
      // A valid change afterwards is applied and published, so the silence below is not a dead topic.
      const applied = await send('UpdateBalances', updateOf(sub), await tokenFor('alpha'), 'alpha-b1');
      expect(status(applied)).toBe('Success');
      await waitFor(() => events.some((e) => e.value.correlationId === applied.headers[HEADER.correlationId]));
      expect(events.filter((e) => correlationIds.includes(e.value.correlationId))).toEqual([]);
    });

    it('a refused command is not remembered: the same correlation id with a valid token is then handled', async () => {
      const sub = await subscriptionOf('alpha');
      const correlationId = randomUUID();
      const command = updateOf(sub);
      await dispatch('UpdateBalances', command, null, undefined, correlationId);
      expect(status(await send('UpdateBalances', command, await tokenFor('alpha'), undefined, correlationId))).toBe('Success');
    });
  });

  describe('the customer hierarchy', () => {
    it("a brand node acting on its own records: every operation succeeds (partner token naming the brand, or the brand's own token)", async () => {
      for (const [token, header] of [
        [await tokenFor('alpha'), 'alpha-b1'],
        [await tokenFor('alpha-b1'), undefined],
      ] as const) {
        const sub = await subscriptionOf('alpha-b1');
        for (const [operation, command] of everyOperation(sub)) {
          const reply = await send(operation, command, token, header);
          expect([operation, status(reply)]).toEqual([operation, 'Success']);
        }
      }
    });

    it("a partner's root node sees and changes its brands' records (and a brand its sub-brand's)", async () => {
      const sub = await subscriptionOf('alpha-b1x');
      const partner = await tokenFor('alpha');
      expect(status(await send('QueryBalances', { gpsi: sub.gpsi }, partner))).toBe('Success');
      expect(status(await send('UpdateBalances', updateOf(sub), partner))).toBe('Success');
      expect(status(await send('QueryBalances', { gpsi: sub.gpsi }, partner, 'alpha-b1'))).toBe('Success');
      expect(status(await send('QueryBalances', { gpsi: sub.gpsi }, await tokenFor('alpha-b1')))).toBe('Success');
    });

    it('a sibling brand or another partner gets FORBIDDEN or NOT_FOUND for every operation, and nothing changes', async () => {
      const sub = await subscriptionOf('alpha-b1');
      const before = await businessState(sub);
      const alpha = await tokenFor('alpha');
      const sibling = await tokenFor('alpha-b2');
      const beta = await tokenFor('beta');
      const attempts: [string, string, string | undefined, string][] = [
        ['partner acting as the sibling brand', alpha, 'alpha-b2', 'NOT_FOUND'],
        ['the sibling brand itself', sibling, undefined, 'NOT_FOUND'],
        ['the sibling brand naming the owner', sibling, 'alpha-b1', 'FORBIDDEN'],
        ['the sibling brand naming its partner', sibling, 'alpha', 'FORBIDDEN'],
        ['another partner', beta, undefined, 'NOT_FOUND'],
        ['another partner naming the owner', beta, 'alpha-b1', 'FORBIDDEN'],
        ['another partner naming an unknown node', beta, 'nobody', 'FORBIDDEN'],
      ];
      for (const [who, token, header, expected] of attempts) {
        for (const [operation, command] of everyOperation(sub)) {
          const reply = await send(operation, command, token, header);
          expect([who, operation, status(reply)]).toEqual([who, operation, expected]);
          if (expected === 'NOT_FOUND') {
            // The same answer as for a number nobody has: no hint that the subscription exists.
            expect(reply.value.error.message).toBe(`No subscription for gpsi ${sub.gpsi} belongs to this wholesale customer`);
          }
        }
      }
      expect(await businessState(sub)).toEqual(before);
    });

    it('a token naming a node the hierarchy does not know is refused like one without credentials: no partner, so no reply', async () => {
      const sub = await subscriptionOf('beta');
      const ghost = await dispatch('QueryBalances', { gpsi: sub.gpsi }, await tokenFor('ghost'));
      expect(status(await send('QueryBalances', { gpsi: sub.gpsi }, await tokenFor('beta')))).toBe('Success');
      expect(fx.requester.unclaimed(ghost)).toBeUndefined();
    });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
