import { randomUUID } from 'node:crypto';
import type { BalanceComponents } from '../../src/app/balance';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { openLetter } from '../support/dead-letters';
import { testAuth, type TestAuth } from '../support/auth';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { TopicReader, type Reply } from '../support/harness';
import { subscriberState } from '../support/redis-snapshot';
import { createActiveSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * A hostile message costs little: oversized arrays and strings are refused with BAD_REQUEST before any
 * work (the validators stop at the bound without walking the rest), the refusal does not echo the input,
 * and a message over MAX_MESSAGE_BYTES is dead-lettered unread.
 */
describe('bounds on hostile commands over the real stack', () => {
  let auth: TestAuth;
  let balance: BalanceComponents;
  let token: string;

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => ({ ...auth.env, MAX_MESSAGE_BYTES: String(256 * 1024) }), requester: true });

  beforeAll(async () => {
    balance = balanceComponentsOf(fx.service, fx.config);
    token = await auth.signer.sign('alpha');
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  const huge = (n: number) => 'x'.repeat(n);
  const problemsOf = (reply: Reply) => {
    expect(reply.headers[HEADER.status]).toBe('BAD_REQUEST');
    return (reply.value.error.problems as { path: string; reason: string }[]).map((p) => `${p.path} ${p.reason}`);
  };

  it('oversized arrays and strings of every balance command → BAD_REQUEST naming the bound, nothing applied, a small reply', async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha' });
    const before = await subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi);
    const action = (overrides: object = {}) => ({
      subBalanceInstId: `${sub.gpsi}-4`,
      balanceType: 'Main',
      subBalanceType: 'On-Net Data',
      action: 'Add',
      quantity: 1,
      unitType: 'MB',
      ...overrides,
    });
    const cases: [string, object, string[]][] = [
      ['AddBuckets', { gpsi: sub.gpsi, bucketRefId: Array.from({ length: 20_000 }, () => '2000001') }, ['bucketRefId must have at most 20 item(s)']],
      ['CancelBuckets', { gpsi: sub.gpsi, bucketRefId: [huge(60_000), huge(60_000)] }, ['bucketRefId[0] must be at most 36 characters', 'bucketRefId[1] must be at most 36 characters']],
      ['SwapPrimaryBucket', { gpsi: sub.gpsi, bucketRefId: huge(200_000) }, ['bucketRefId must be at most 36 characters']],
      ['QueryBalances', { gpsi: huge(200_000) }, ['gpsi must be at most 15 characters', 'gpsi must match 11 to 15 digits']],
      ['UpdateBalances', { gpsi: sub.gpsi, balances: Array.from({ length: 5_000 }, () => action()) }, ['balances must have at most 100 item(s)']],
      [
        'UpdateBalances',
        { gpsi: sub.gpsi, balances: [action({ subBalanceInstId: huge(50_000), subBalanceType: huge(50_000), unitType: huge(50_000), balanceType: huge(50_000) })] },
        [
          'balances[0].subBalanceInstId must be at most 64 characters',
          'balances[0].subBalanceType must be at most 64 characters',
          'balances[0].unitType must be at most 64 characters',
          'balances[0].balanceType must be one of Main',
        ],
      ],
      ['QueryBalanceHistory', { gpsi: sub.gpsi, limit: 1_000_000 }, ['limit must be between 1 and 500']],
    ];
    for (const [operation, command, expected] of cases) {
      const started = performance.now();
      const reply = await fx.requester.send('balanceCommands', balanceRecord(operation), command, { token, key: 'hostile' });
      expect([operation, ...problemsOf(reply)]).toEqual([operation, ...expected]);
      expect(reply.rawValue!.length).toBeLessThan(2048); // the refusal never echoes the hostile input
      expect(performance.now() - started).toBeLessThan(5000);
    }
    expect(await subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi)).toEqual(before);
  });

  it('oversized headers → BAD_REQUEST (wholesaleCustomerId) or refused unread (Authorization)', async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha' });
    const customer = await fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token, headers: { [HEADER.wholesaleCustomerId]: huge(5000) } });
    expect(problemsOf(customer)).toEqual([`headers.${HEADER.wholesaleCustomerId} must be at most 12 characters`]);
    // Refused unread and, with no verified caller, answered on no topic: the next command of the number is served.
    const bearer = await fx.requester.dispatch('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token: huge(100_000) });
    const next = await fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token });
    expect([next.headers[HEADER.status], fx.requester.unclaimed(bearer)]).toEqual(['Success', undefined]);
  });

  it("records with 20,000 headers or 150,000 values of one header are read in milliseconds, and the command behind them is answered (kafkajs's own decoder took minutes)", async () => {
    // kafkajs 2.2.4 gathers a fetched record's headers with a copy of the object per header, and a repeated
    // name's values with a copy of the array per value: 73 s of CPU for the first record (170 KB), minutes for
    // the second (600 KB), with the worker's event loop blocked (src/adapters/kafka/record-decoder.ts).
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha' });
    const manyNames = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`x-junk-${i}`, 'v']));
    const manyValues = { x: Array.from({ length: 150_000 }, () => 'v') } as unknown as Record<string, string>;
    const [names, values, next] = await Promise.all([
      fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token, headers: manyNames }),
      fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token, headers: manyValues }),
      fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token }),
    ]);
    expect([names.headers[HEADER.status], next.headers[HEADER.status]]).toEqual(['Success', 'Success']);
    // over this suite's MAX_MESSAGE_BYTES (256 KiB): refused, as any record that size
    expect(values.value.error.message).toMatch(/^TOO_LARGE: message is \d+ bytes, the limit is 262144$/);
  });

  it('a message over MAX_MESSAGE_BYTES is dead-lettered without its bearer token and answered BAD_REQUEST', async () => {
    const letters: Reply[] = [];
    const dlq = await TopicReader.start(fx.config, [fx.config.topics.deadLetters], (r) => letters.push(r));
    try {
      const correlationId = randomUUID();
      const pending = fx.requester.awaitReply(correlationId);
      await fx.requester.sendRaw(fx.config.topics.balanceCommands, {
        key: 'k',
        value: Buffer.alloc(300 * 1024, 1),
        headers: { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${token}` },
      });
      const reply = await pending;
      expect(reply.headers[HEADER.status]).toBe('BAD_REQUEST');
      expect(reply.value.error.message).toMatch(/^TOO_LARGE: message is \d+ bytes, the limit is 262144$/);
      const deadline = Date.now() + 20_000;
      while (!letters.some((l) => l.headers[DLQ_HEADER.correlationId] === correlationId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const letter = letters.find((l) => l.headers[DLQ_HEADER.correlationId] === correlationId)!;
      expect(letter.headers[DLQ_HEADER.reason]).toBe('TOO_LARGE');
      expect(Object.keys(letter.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
      expect(openLetter(fx.config, letter).original?.headers.map(([name]) => name.toLowerCase())).toEqual([HEADER.correlationId.toLowerCase()]);
    } finally {
      await dlq.stop();
    }
  });

  it('an X-Correlation-Id over 128 characters gets its BAD_REQUEST under the id it sent (up to 1 KiB)', async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha' });
    const correlationId = `${randomUUID()}-${'x'.repeat(129)}`;
    const reply = await fx.requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { token, correlationId });
    expect(reply.headers[HEADER.correlationId]).toBe(correlationId);
    expect(problemsOf(reply)).toEqual([`headers.${HEADER.correlationId} must be at most 128 characters`]);
  });
});
