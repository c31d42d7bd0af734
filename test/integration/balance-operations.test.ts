import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pino from 'pino';
import { readLuaSources } from '../../scripts/generate-redis-scripts';
import type { BalanceComponents } from '../../src/app/balance';
import { createRedisReservationExpiryStore } from '../../src/adapters/redis/reservation-store';
import { subscriberKeys, transferDueKey } from '../../src/adapters/redis/keys';
import type { CommandContext } from '../../src/contract/handlers';
import { createRedisTransferSweepStore } from '../../src/adapters/redis/transfer-store';
import { HEADER } from '../../src/contract/headers';
import type { OutgoingMessage } from '../../src/contract/messages';
import type { CommandMeta } from '../../src/handlers/balance/ports';
import { createReserveBalance } from '../../src/handlers/balance-operations/reservation-handlers';
import type { ReservationStore } from '../../src/handlers/balance-operations/ports';
import { deterministicId } from '../../src/domain/balance/billing-events';
import { applyQuantity } from '../../src/domain/balance/arithmetic';
import { availableOf, commitAmounts, releaseAmounts, reserveAmounts, type Held } from '../../src/domain/balance-operations/reservation-rules';
import { commandIdOf, fingerprintOf } from '../../src/pipeline/command-processor';
import { createReservationExpiry } from '../../src/schedulers/reservation-expiry';
import { createTransferSweeper } from '../../src/schedulers/transfer-sweeper';
import { balanceComponentsOf, BalanceClient, balanceRecord } from '../support/balance-client';
import { request, startTestGateway } from '../support/gateway';
import type { Reply } from '../support/harness';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { createPreviousRelease } from '../support/previous-release';
import { redisTopologies } from '../support/redis-topologies';
import { useService } from '../support/service-fixture';

/**
 * The balance operations of issue 49. Reservations: the rules' two copies against each other on a real
 * Redis, the invariant over random histories through the real scripts, the three commands and the expiry
 * end to end over Kafka, and the expiry measured on Redis's clock whatever the workers' clocks read. Top-up
 * once per reference and adjustment with a reason code over Kafka.
 */
const ERROR_REPLY = 'wholesale.common.v1.ErrorReply';
/** The transfer sweep age the service runs with here: long enough that a redelivery in the interruption test usually comes first. */
const SWEEP_AFTER_MS = 1500;
const balanceLib = readLuaSources().libs.find((lib) => lib.name === 'balance')!;

describe.each(redisTopologies())('balance operations of issue 49 over the real stack (Redis $name)', (topology) => {
  let client: BalanceClient;
  let balance: BalanceComponents;
  const fx = useService({ env: async () => ({ ...(await topology.env()), BALANCE_RENEWAL_POLL_MS: '100', BALANCE_TRANSFER_SWEEP_AFTER_MS: String(SWEEP_AFTER_MS) }) });

  beforeAll(async () => {
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
  });
  afterAll(async () => {
    await topology.stop();
  });

  const dataOf = (sub: TestSubscription) => `${sub.gpsi}-4`; // WP-BASIC's On-Net Data, 5120 MB
  const subBalance = (reply: Reply, id: string) =>
    reply.value.balances.flatMap((b: { subBalances: { subBalanceInstId: string }[] }) => b.subBalances).find((s: { subBalanceInstId: string }) => s.subBalanceInstId === id);
  const errorOf = (reply: Reply, code: string) => {
    expect(reply.recordName).toBe(ERROR_REPLY);
    expect(reply.value.error.code).toBe(code);
    return reply.value.error as { message: string; problems: { path: string; reason: string }[] };
  };
  const eventsOf = (type: string, reservationId: string) => client.events.filter((e) => e.recordName === balanceRecord(type) && e.value.reservationId === reservationId);

  it('applies the same reservation rules in Lua as in TypeScript', async () => {
    const body = `
local out = {}
for i, c in ipairs(cjson.decode(ARGV[1])) do
  local reserved, reason = reserveAmounts(c.remaining, c.reserved, c.amount)
  local remaining, purchased, afterCommit, charged = commitAmounts(c.remaining, c.purchased, c.reserved, c.held, c.used)
  out[i] = { reserved = reserved or cjson.null, reason = reason or cjson.null, commit = { remaining, purchased, afterCommit, charged },
    released = releaseAmounts(c.reserved, c.held), available = availableOf(c.remaining, c.reserved) }
end
return cjson.encode(out)`;
    const input = fc
      .record({
        remaining: fc.integer({ min: 0, max: 10 ** 12 }),
        purchasedShare: fc.double({ min: 0, max: 1, noNaN: true }),
        reserved: fc.integer({ min: 0, max: 10 ** 12 }),
        amount: fc.integer({ min: 1, max: 10 ** 12 }),
        held: fc.integer({ min: 0, max: 10 ** 12 }),
        usedShare: fc.double({ min: 0, max: 1, noNaN: true }),
      })
      .map(({ purchasedShare, usedShare, ...c }) => ({ ...c, purchased: Math.floor(c.remaining * purchasedShare), used: Math.floor(c.held * usedShare) }));
    await fc.assert(
      fc.asyncProperty(fc.array(input, { minLength: 1, maxLength: 50 }), async (cases) => {
        const lua = JSON.parse((await fx.service.redis.eval(`${balanceLib.source}\n${balanceLib.onCall.join('\n')}\n${body}`, 0, JSON.stringify(cases))) as string) as {
          reserved: number | null;
          reason: string | null;
          commit: number[];
          released: number;
          available: number;
        }[];
        cases.forEach((c, i) => {
          const b: Held = { remaining: c.remaining, purchased: c.purchased, reserved: c.reserved };
          const reserved = reserveAmounts(b, c.amount);
          expect(lua[i].reserved ?? { reason: lua[i].reason }).toEqual('reason' in reserved ? { reason: reserved.reason } : reserved.reserved);
          const committed = commitAmounts(b, c.held, c.used);
          expect(lua[i].commit).toEqual([committed.remaining, committed.purchased, committed.reserved, committed.charged]);
          expect(lua[i].released).toBe(releaseAmounts(b, c.held).reserved);
          expect(lua[i].available).toBe(availableOf(b));
        });
      }),
      { numRuns: 40 },
    );
  });

  it('keeps granted = used + reserved + available, and the ledger summing to the balance, over random histories through the scripts', async () => {
    type Step = { kind: 'reserve'; amount: number } | { kind: 'commit' | 'release'; pick: number; usedShare: number } | { kind: 'Add' | 'Subtract'; amount: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), amount: fc.integer({ min: 1, max: 4000 }).map((n) => n * 1000) }),
      fc.record({ kind: fc.constantFrom('commit' as const, 'release' as const), pick: fc.nat(), usedShare: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ kind: fc.constantFrom('Add' as const, 'Subtract' as const), amount: fc.integer({ min: 1, max: 4000 }).map((n) => n * 1000) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 16 }), async (steps) => {
        const sub = await createActiveSubscription(balance.subscriptions);
        const id = dataOf(sub);
        const meta = (operation: string): CommandMeta => {
          const correlationId = randomUUID();
          return {
            gpsi: sub.gpsi,
            wholesaleCustomerId: sub.wholesaleCustomerId,
            commandId: commandIdOf(sub.wholesaleCustomerId, operation, correlationId),
            correlationId,
            operation,
            at: new Date().toISOString(),
          };
        };
        let model: Held = { remaining: 5_120_000, purchased: 0, reserved: 0 };
        let granted = model.remaining;
        let used = 0;
        const live: { id: string; amount: number }[] = [];
        for (const s of steps) {
          if (s.kind === 'reserve') {
            const reservationId = randomUUID();
            const expected = reserveAmounts(model, s.amount);
            const result = await balance.reservations.reserve(meta('ReserveBalance'), { reservationId, subBalanceInstId: id, amount: s.amount, ttlMs: 600_000 }).catch((e: Error) => e);
            if ('reason' in expected) expect((result as Error).message).toContain(expected.reason);
            else {
              expect(result).not.toBeInstanceOf(Error);
              model = expected;
              live.push({ id: reservationId, amount: s.amount });
            }
          } else if (s.kind === 'commit' || s.kind === 'release') {
            if (live.length === 0) continue;
            const [r] = live.splice(s.pick % live.length, 1);
            if (s.kind === 'release') {
              await balance.reservations.release(meta('ReleaseReservation'), r.id);
              model = releaseAmounts(model, r.amount);
            } else {
              const usedNow = Math.floor((r.amount * s.usedShare) / 1000) * 1000;
              const outcome = await balance.reservations.commit(meta('CommitReservation'), { reservationId: r.id, used: usedNow }, {});
              const { charged, ...after } = commitAmounts(model, r.amount, usedNow);
              expect(outcome.reservation.charged).toBe(charged);
              used += charged;
              model = after;
            }
          } else {
            const u = s as { kind: 'Add' | 'Subtract'; amount: number };
            const action = { subBalanceInstId: id, subBalanceType: 'On-Net Data', unitType: 'MB', action: u.kind, quantity: u.amount };
            const result = await balance.balances.updateBalances(meta('UpdateBalances'), { actions: [action], problems: [] }).catch((e: Error) => e);
            const allowed = u.kind === 'Add' || model.remaining - u.amount >= model.reserved;
            expect(result instanceof Error).toBe(!allowed);
            if (allowed) {
              model = { ...model, ...(applyQuantity(model, u.kind, u.amount) as Pick<Held, 'remaining' | 'purchased'>) };
              if (u.kind === 'Add') granted += u.amount;
              else used += u.amount;
            }
          }
        }
        const [stored] = (await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).balances.filter((b) => b.subBalanceInstId === id);
        expect({ remaining: stored.remaining, purchased: stored.purchased, reserved: stored.reserved ?? 0 }).toEqual(model);
        expect(granted).toBe(used + model.reserved + availableOf(model));
        // The ledger sums to the balance: the grant, plus every Add, minus every Subtract (usage and commits).
        const ledger = (await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 500)).filter((e) => e.subBalanceInstId === id);
        const sum = ledger.reduce((total, e) => total + (e.change === 'Created' ? e.after!.remaining : e.change === 'Add' ? e.quantity! : e.change === 'Subtract' ? -e.quantity! : 0), 0);
        expect(sum).toBe(stored.remaining);
        expect(ledger.filter((e) => e.operation === 'CommitReservation').every((e) => e.change === 'Subtract')).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('reserves, refuses more than is available, replays, commits and releases over Kafka', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const id = dataOf(sub);
    const reserve = { gpsi: sub.gpsi, reservationId: 'session-1', subBalanceInstId: id, amount: 1000.5, ttlSeconds: 300 };
    const correlationId = randomUUID();
    const reserved = await client.send('ReserveBalance', reserve, sub.wholesaleCustomerId, correlationId);
    expect(reserved.recordName).toBe(balanceRecord('ReserveBalanceReply'));
    expect(reserved.value).toMatchObject({ status: 'Success', reservationId: 'session-1', subBalanceInstId: id, reservedAmount: 1000.5 });
    expect(subBalance(reserved, id)).toMatchObject({ remainingBalance: 5120, reservedBalance: 1000.5, availableBalance: 4119.5 });
    const query = await client.send('QueryBalances', { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
    expect(subBalance(query, id)).toMatchObject({ remainingBalance: 5120, reservedBalance: 1000.5, availableBalance: 4119.5 });
    const event = await client.event((e) => e.recordName === balanceRecord('BalanceReserved') && e.value.correlationId === correlationId);
    expect(event.headers.ce_id).toBe(deterministicId(`${commandIdOf(sub.wholesaleCustomerId, 'ReserveBalance', correlationId)}/BalanceReserved`));
    expect(event.value).toMatchObject({ gpsi: sub.gpsi, reservationId: 'session-1', reservedAmount: 1000.5, expiresAt: reserved.value.expiresAt });

    // The same command again replays (same reply, nothing held twice); the same id with another payload is CONFLICT.
    const again = await client.send('ReserveBalance', reserve, sub.wholesaleCustomerId, correlationId);
    expect(again.value).toEqual(reserved.value);
    expect(again.headers[HEADER.status]).toBe('Success');
    errorOf(await client.send('ReserveBalance', { ...reserve, amount: 2 }, sub.wholesaleCustomerId, correlationId), 'CONFLICT');
    const tooMuch = errorOf(await client.send('ReserveBalance', { ...reserve, reservationId: 'session-2', amount: 4120 }, sub.wholesaleCustomerId), 'BAD_REQUEST');
    expect(tooMuch.problems).toEqual([{ path: 'amount', reason: 'exceeds the available balance (requested 4120, available 4119.5)' }]);
    // A Subtract may not take what is held.
    const usage = { subBalanceInstId: id, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 4200, unitType: 'MB' };
    expect(errorOf(await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [usage] }, sub.wholesaleCustomerId), 'BAD_REQUEST').problems[0].reason).toBe(
      'would take the remaining balance below what is reserved (remaining 5120, reserved 1000.5)',
    );

    const overUse = errorOf(await client.send('CommitReservation', { gpsi: sub.gpsi, reservationId: 'session-1', usedAmount: 1001 }, sub.wholesaleCustomerId), 'BAD_REQUEST');
    expect(overUse.problems).toEqual([{ path: 'usedAmount', reason: 'exceeds the reserved amount (used 1001, reserved 1000.5)' }]);
    const commitId = randomUUID();
    const committed = await client.send('CommitReservation', { gpsi: sub.gpsi, reservationId: 'session-1', usedAmount: 600.25 }, sub.wholesaleCustomerId, commitId);
    expect(committed.value).toMatchObject({ status: 'Success', usedAmount: 600.25, chargedAmount: 600.25, reservedAmount: 1000.5 });
    expect(subBalance(committed, id)).toMatchObject({ remainingBalance: 4519.75, reservedBalance: 0, availableBalance: 4519.75 });
    const again2 = await client.send('CommitReservation', { gpsi: sub.gpsi, reservationId: 'session-1', usedAmount: 600.25 }, sub.wholesaleCustomerId, commitId);
    expect(again2.value).toEqual(committed.value);
    const committedEvent = await client.event((e) => e.recordName === balanceRecord('ReservationCommitted') && e.value.correlationId === commitId);
    expect(committedEvent.value.changes).toEqual([
      expect.objectContaining({
        change: 'Subtract',
        subBalanceInstId: id,
        quantity: 600.25,
        before: expect.objectContaining({ remainingBalance: 5120 }),
        after: expect.objectContaining({ remainingBalance: 4519.75 }),
      }),
    ]);
    // Committed: gone; a new commit of it is NOT_FOUND.
    errorOf(await client.send('CommitReservation', { gpsi: sub.gpsi, reservationId: 'session-1', usedAmount: 1 }, sub.wholesaleCustomerId), 'NOT_FOUND');

    await client.send('ReserveBalance', { ...reserve, reservationId: 'session-3', amount: 100 }, sub.wholesaleCustomerId);
    const released = await client.send('ReleaseReservation', { gpsi: sub.gpsi, reservationId: 'session-3' }, sub.wholesaleCustomerId);
    expect(subBalance(released, id)).toMatchObject({ remainingBalance: 4519.75, reservedBalance: 0 });
    await client.event((e) => e.recordName === balanceRecord('ReservationReleased') && e.value.reservationId === 'session-3' && e.value.gpsi === sub.gpsi);
    // The replay published the same BalanceReserved again, under the same id: consumers de-duplicate it.
    expect(
      new Set(
        eventsOf('BalanceReserved', 'session-1')
          .filter((e) => e.value.gpsi === sub.gpsi)
          .map((e) => e.headers.ce_id),
      ),
    ).toEqual(new Set([event.headers.ce_id]));
  });

  it('releases an uncommitted reservation when its time to live ends, once although two schedulers run', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const id = dataOf(sub);
    const reservationId = `ttl-${randomUUID()}`;
    const reply = await client.send('ReserveBalance', { gpsi: sub.gpsi, reservationId, subBalanceInstId: id, amount: 10, ttlSeconds: 1 }, sub.wholesaleCustomerId);
    expect(subBalance(reply, id)).toMatchObject({ reservedBalance: 10 });
    // A second instance's scheduler on the same Redis, polling more often than the service's; what it publishes is kept here.
    const published: OutgoingMessage[] = [];
    const other = createReservationExpiry({
      store: createRedisReservationExpiryStore(fx.service.redis, { keyPrefix: fx.config.redis.keyPrefix }),
      publish: async (messages) => void published.push(...messages),
      log: pino({ level: 'silent' }),
      settings: { pollIntervalMs: 50, batchSize: 100, leaseMs: 30_000 },
    });
    const expiries = () => [
      ...eventsOf('ReservationExpired', reservationId).map((e) => e.value),
      ...published.filter((m) => m.recordName === balanceRecord('ReservationExpired') && (m.value as { reservationId: string }).reservationId === reservationId).map((m) => m.value),
    ];
    other.start();
    try {
      const deadline = Date.now() + 15_000;
      while (expiries().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(expiries()[0]).toMatchObject({ gpsi: sub.gpsi, subBalanceInstId: id, reservedAmount: 10, expiresAt: reply.value.expiresAt });
      const query = await client.send('QueryBalances', { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
      expect(subBalance(query, id)).toMatchObject({ remainingBalance: 5120, reservedBalance: 0, availableBalance: 5120 });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(expiries()).toHaveLength(1);
      errorOf(await client.send('CommitReservation', { gpsi: sub.gpsi, reservationId, usedAmount: 1 }, sub.wholesaleCustomerId), 'NOT_FOUND');
      const keys = subscriberKeys(fx.config.redis.keyPrefix, sub.gpsi);
      expect(await fx.service.redis.exists(keys.reservations, keys.reservationOutbox)).toBe(0);
    } finally {
      await other.stop();
    }
  });

  /** How far off the workers' clocks are in the two clock tests below: far more than a reservation's time to live there. */
  const SKEW_MS = 120_000;
  /** Redis's clock (epoch ms), the one reservation expiry is measured on. */
  const redisNow = async () => {
    const [seconds, micros] = await fx.service.redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  /** Balance stores under a key prefix of their own: the service's scheduler never sees their reservations, so a test's ticks are the only ones. */
  const isolatedBalance = () => {
    const keyPrefix = `${fx.config.redis.keyPrefix}clock-${randomUUID().slice(0, 8)}:`;
    return { keyPrefix, balance: balanceComponentsOf(fx.service, { ...fx.config, redis: { ...fx.config.redis, keyPrefix } }) };
  };
  /** ReserveBalance as the pipeline hands it to the handler on a worker whose clock reads `now`. */
  const reserveOnWorker = async (reservations: ReservationStore, sub: TestSubscription, now: Date, r: { reservationId: string; amount: number; ttlSeconds: number }) => {
    const command = { gpsi: sub.gpsi, subBalanceInstId: dataOf(sub), ...r };
    const correlationId = randomUUID();
    const customer = sub.wholesaleCustomerId;
    const context: CommandContext = {
      correlationId,
      commandId: commandIdOf(customer, 'ReserveBalance', correlationId),
      operation: 'ReserveBalance',
      wholesaleCustomerId: customer,
      canSee: (owner) => owner === customer,
      visibleCustomerIds: [customer],
      now,
      log: pino({ level: 'silent' }),
      fingerprint: fingerprintOf(command),
    };
    return (await createReserveBalance({ reservations })(command, context)).reply as { expiresAt: string };
  };

  it("stamps a reservation's end on Redis's clock: reserved for 30 s by a worker 120 s behind or ahead, it ends 30 s from now", async () => {
    const { keyPrefix, balance: own } = isolatedBalance();
    const sub = await createActiveSubscription(own.subscriptions);
    for (const [reservationId, skewMs] of [
      ['behind', -SKEW_MS],
      ['ahead', SKEW_MS],
    ] as const) {
      const before = await redisNow();
      const reply = await reserveOnWorker(own.reservations, sub, new Date(Date.now() + skewMs), { reservationId, amount: 10, ttlSeconds: 30 });
      const after = await redisNow();
      const endsAt = Date.parse(reply.expiresAt);
      expect(endsAt - before).toBeGreaterThanOrEqual(30_000);
      expect(endsAt - after).toBeLessThanOrEqual(30_000);
      // Stored in the format older workers read (format|seq|amount|expiresAt), during a rolling restart too.
      expect(await fx.service.redis.hget(subscriberKeys(keyPrefix, sub.gpsi).reservations, reservationId)).toBe(`1|4|10000|${endsAt}`);
    }
  });

  it("expires reservations on Redis's clock: schedulers on workers 120 s ahead and behind release one at its end, not before, once", async () => {
    const { keyPrefix, balance: own } = isolatedBalance();
    const sub = await createActiveSubscription(own.subscriptions);
    const id = dataOf(sub);
    await reserveOnWorker(own.reservations, sub, new Date(), { reservationId: 'long', amount: 10, ttlSeconds: 30 });
    const short = await reserveOnWorker(own.reservations, sub, new Date(), { reservationId: 'short', amount: 20, ttlSeconds: 1 });
    const published: OutgoingMessage[] = [];
    const schedulerOn = (skewMs: number) =>
      createReservationExpiry({
        // The worker's own clock, which the scheduler once read (`realNow`): a scheduler that reads it again fails here.
        ...{ realNow: () => Date.now() + skewMs },
        store: createRedisReservationExpiryStore(fx.service.redis, { keyPrefix }),
        publish: async (messages) => void published.push(...messages),
        log: pino({ level: 'silent' }),
        settings: { pollIntervalMs: 50, batchSize: 100, leaseMs: 30_000 },
      });
    const ahead = schedulerOn(SKEW_MS);
    const behind = schedulerOn(-SKEW_MS);
    const tickBoth = async () => (await Promise.all([ahead.tick(), behind.tick()])).reduce((a, b) => a + b, 0);

    // Both have time left on Redis's clock: the worker ahead releases neither.
    expect(await ahead.tick()).toBe(0);
    let released = 0;
    const deadline = Date.now() + 10_000;
    while (released === 0 && Date.now() < deadline) {
      released += await tickBoth();
      if (released === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    released += await tickBoth();
    expect(released).toBe(1);
    const expired = published.map((m) => m.value as { reservationId: string; expiresAt: string; occurredAt: string });
    expect(expired).toEqual([expect.objectContaining({ reservationId: 'short', subBalanceInstId: id, expiresAt: short.expiresAt })]);
    // Released at its end on Redis's clock (the event's time is the tick's Redis time), not before.
    expect(Date.parse(expired[0].occurredAt)).toBeGreaterThanOrEqual(Date.parse(short.expiresAt));
    // The 30 s one is still held.
    const [row] = (await own.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).balances.filter((b) => b.subBalanceInstId === id);
    expect(row.reserved).toBe(10_000);
  });

  it('tops up once per reference: the same reference replays, another amount or number under it is CONFLICT', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const other = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: sub.wholesaleCustomerId });
    const id = dataOf(sub);
    const reference = `pay-${randomUUID()}`;
    const topup = { gpsi: sub.gpsi, subBalanceInstId: id, subBalanceType: 'On-Net Data', unitType: 'MB', amount: 250.5, reference, referenceType: 'PAYMENT' };
    const first = await client.send('TopupBalance', topup, sub.wholesaleCustomerId);
    expect(first.recordName).toBe(balanceRecord('TopupBalanceReply'));
    expect(first.value).toMatchObject({ status: 'Success', reference, referenceType: 'PAYMENT' });
    expect(subBalance(first, id)).toMatchObject({ remainingBalance: 5370.5, purchasedBalance: 250.5, availableBalance: 5370.5 });
    // Sent again under a new correlation id (a partner's retry after a lost reply): the first answer, nothing added.
    const again = await client.send('TopupBalance', topup, sub.wholesaleCustomerId);
    expect(again.value).toEqual(first.value);
    errorOf(await client.send('TopupBalance', { ...topup, amount: 300 }, sub.wholesaleCustomerId), 'CONFLICT');
    const elsewhere = errorOf(await client.send('TopupBalance', { ...topup, gpsi: other.gpsi, subBalanceInstId: dataOf(other) }, sub.wholesaleCustomerId), 'CONFLICT');
    expect(elsewhere.problems).toEqual([{ path: 'reference', reason: 'was already used for another subscription' }]);
    const query = await client.send('QueryBalances', { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
    expect(subBalance(query, id)).toMatchObject({ remainingBalance: 5370.5 });
    await client.event((e) => e.recordName === balanceRecord('BalanceToppedUp') && e.value.reference === reference);
    const events = client.events.filter((e) => e.recordName === balanceRecord('BalanceToppedUp') && e.value.reference === reference);
    // The replay publishes the same event under the same id.
    expect(new Set(events.map((e) => e.headers.ce_id)).size).toBe(1);
    expect(events[0].value).toMatchObject({ referenceType: 'PAYMENT', changes: [expect.objectContaining({ change: 'Add', quantity: 250.5 })] });
    const invalid = errorOf(await client.send('TopupBalance', { ...topup, reference: 'a b', referenceType: 'CASH', amount: -1 }, sub.wholesaleCustomerId), 'BAD_REQUEST');
    expect(invalid.problems.map((p) => p.path).sort()).toEqual(['amount', 'reference', 'referenceType']);
  });

  it('adjusts with a reason code kept in the ledger and the event; a Debit may not take what is reserved', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const id = dataOf(sub);
    const adjust = { gpsi: sub.gpsi, subBalanceInstId: id, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Debit', amount: 120, reasonCode: 'CORRECTION', note: 'double-rated session' };
    const correlationId = randomUUID();
    const debited = await client.send('AdjustBalance', adjust, sub.wholesaleCustomerId, correlationId);
    expect(debited.value).toMatchObject({ status: 'Success', reasonCode: 'CORRECTION' });
    expect(subBalance(debited, id)).toMatchObject({ remainingBalance: 5000 });
    const event = await client.event((e) => e.recordName === balanceRecord('BalanceAdjusted') && e.value.correlationId === correlationId);
    expect(event.value).toMatchObject({ reasonCode: 'CORRECTION', note: 'double-rated session' });
    expect(event.value.changes).toEqual([expect.objectContaining({ change: 'Subtract', quantity: 120 })]);
    const history = await client.send('QueryBalanceHistory', { gpsi: sub.gpsi, limit: 1 }, sub.wholesaleCustomerId);
    expect(history.value.entries[0]).toMatchObject({ operation: 'AdjustBalance/CORRECTION', change: 'Subtract', quantity: 120 });
    await client.send('ReserveBalance', { gpsi: sub.gpsi, reservationId: 'held', subBalanceInstId: id, amount: 4900, ttlSeconds: 300 }, sub.wholesaleCustomerId);
    const refused = errorOf(await client.send('AdjustBalance', { ...adjust, amount: 101, reasonCode: 'GOODWILL' }, sub.wholesaleCustomerId), 'BAD_REQUEST');
    expect(refused.problems[0].reason).toBe('would take the remaining balance below what is reserved (remaining 5000, reserved 4900)');
    const credited = await client.send('AdjustBalance', { ...adjust, action: 'Credit', amount: 10, reasonCode: 'GOODWILL', note: null }, sub.wholesaleCustomerId);
    expect(subBalance(credited, id)).toMatchObject({ remainingBalance: 5010, reservedBalance: 4900, availableBalance: 110 });
  });

  it('reserves and commits over HTTP through the gateway, a retry with the same X-Correlation-Id answered the same', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const id = dataOf(sub);
    const gateway = await startTestGateway(fx.config);
    try {
      const headers = { wholesaleCustomerId: sub.wholesaleCustomerId };
      const reserved = await request(gateway.url, 'POST', '/balances/reservations', {
        headers,
        body: { gpsi: sub.gpsi, reservationId: 'http-1', subBalanceInstId: id, amount: 64, ttlSeconds: 60 },
      });
      expect(reserved.status).toBe(200);
      expect(reserved.body).toMatchObject({ status: 'Success', reservationId: 'http-1', reservedAmount: 64 });
      const commit = { headers: { ...headers, 'X-Correlation-Id': randomUUID() }, body: { gpsi: sub.gpsi, reservationId: 'http-1', usedAmount: 40 } };
      const committed = await request(gateway.url, 'POST', '/balances/reservations/commits', commit);
      expect(committed.status).toBe(200);
      expect(committed.body).toMatchObject({ usedAmount: 40, chargedAmount: 40 });
      const retried = await request(gateway.url, 'POST', '/balances/reservations/commits', commit);
      expect(retried.body).toEqual(committed.body);
      const balances = await request(gateway.url, 'GET', '/balances', { headers, query: { gpsi: sub.gpsi } });
      expect(subBalance({ value: balances.body } as Reply, id)).toMatchObject({ remainingBalance: 5080, reservedBalance: 0, availableBalance: 5080 });
    } finally {
      await gateway.close();
    }
  });

  /** The identity a worker gives a TransferBalance command, for tests that run its steps through the store as a worker would. */
  const transferMetaOf = (command: { gpsi: string }, customer: string, correlationId: string): CommandMeta => ({
    gpsi: command.gpsi,
    wholesaleCustomerId: customer,
    commandId: commandIdOf(customer, 'TransferBalance', correlationId),
    correlationId,
    operation: 'TransferBalance',
    at: new Date().toISOString(),
    fingerprint: fingerprintOf(command),
  });

  it('transfers all or nothing and exactly once between two numbers, taken over by the next worker after an interruption at every step', async () => {
    const from = await createActiveSubscription(balance.subscriptions);
    const to = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: from.wholesaleCustomerId });
    const customer = from.wholesaleCustomerId;
    const remainingOf = async (sub: TestSubscription) =>
      (await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).balances.find((b) => b.subBalanceInstId === dataOf(sub))!.remaining;
    // The steps a worker got through before it died (0 to all 3); the command is then delivered again.
    for (const stepsDone of [0, 1, 2, 3]) {
      const amount = 10 + stepsDone;
      const command = { gpsi: from.gpsi, subBalanceInstId: dataOf(from), toGpsi: to.gpsi, toSubBalanceInstId: dataOf(to), amount };
      const correlationId = randomUUID();
      const meta = transferMetaOf(command, customer, correlationId);
      if (stepsDone >= 1) await balance.transfers.debit(meta, { subBalanceInstId: dataOf(from), amount: amount * 1000 });
      if (stepsDone >= 2) await balance.transfers.credit(meta, to.gpsi, { subBalanceInstId: dataOf(to), subBalanceType: 'On-Net Data', unitType: 'MB', amount: amount * 1000 });
      if (stepsDone >= 3) await balance.transfers.settle(meta, true);
      const reply = await client.send('TransferBalance', command, customer, correlationId);
      expect(reply.value).toMatchObject({ status: 'Success', transferId: meta.commandId, toGpsi: to.gpsi, amount });
      expect(subBalance(reply, dataOf(from))).toMatchObject({ remainingBalance: 5120 - [10, 11, 12, 13].slice(0, stepsDone + 1).reduce((a, b) => a + b, 0) });
    }
    // Each of the four moved once: 46 MB from one to the other, nothing lost or doubled.
    expect(await remainingOf(from)).toBe(5_074_000);
    expect(await remainingOf(to)).toBe(5_166_000);
    const ledgerOf = async (sub: TestSubscription) =>
      (await balance.balances.history(sub.gpsi, [customer], 50)).filter((e) => e.operation === 'TransferBalance').map((e) => [e.change, e.quantity]);
    expect((await ledgerOf(from)).sort()).toEqual([
      ['Subtract', 10_000],
      ['Subtract', 11_000],
      ['Subtract', 12_000],
      ['Subtract', 13_000],
    ]);
    expect((await ledgerOf(to)).sort()).toEqual([
      ['Add', 10_000],
      ['Add', 11_000],
      ['Add', 12_000],
      ['Add', 13_000],
    ]);
    const event = await client.event((e) => e.recordName === balanceRecord('BalanceTransferred') && e.value.gpsi === from.gpsi && e.value.amount === 13);
    expect(event.value.changes.map((c: { change: string; subBalanceInstId: string }) => [c.change, c.subBalanceInstId])).toEqual([
      ['Subtract', dataOf(from)],
      ['Add', dataOf(to)],
    ]);

    // A target that refuses: the debit is reversed, all or nothing; sent again, the same answer and nothing more.
    const refused = { gpsi: from.gpsi, subBalanceInstId: dataOf(from), toGpsi: to.gpsi, toSubBalanceInstId: `${to.gpsi}-1`, amount: 5 };
    const correlationId = randomUUID();
    const first = errorOf(await client.send('TransferBalance', refused, customer, correlationId), 'CONFLICT');
    expect(first.problems).toEqual([{ path: 'toSubBalanceInstId', reason: 'toSubBalanceInstId is On-Net Voice in Min, not On-Net Data in MB' }]);
    const reversedEvent = await client.event((e) => e.recordName === balanceRecord('TransferReversed') && e.value.correlationId === correlationId);
    expect(errorOf(await client.send('TransferBalance', refused, customer, correlationId), 'CONFLICT')).toEqual(first);
    expect(await remainingOf(from)).toBe(5_074_000);
    expect(await remainingOf(to)).toBe(5_166_000);
    // published with the CONFLICT: the debit then its reversal, as the source's ledger has them; the same event again for the same command
    const reversedMeta = transferMetaOf(refused, customer, correlationId);
    expect(reversedEvent.value).toMatchObject({ gpsi: from.gpsi, transferId: reversedMeta.commandId, toGpsi: to.gpsi, amount: 5, reason: first.problems[0].reason });
    expect(reversedEvent.value.changes.map((c: { change: string; subBalanceInstId: string; quantity: number }) => [c.change, c.subBalanceInstId, c.quantity])).toEqual([
      ['Subtract', dataOf(from), 5],
      ['Add', dataOf(from), 5],
    ]);
    await client.event((e) => e.recordName === balanceRecord('TransferReversed') && e.value.correlationId === correlationId && e !== reversedEvent);
    const reversedEvents = client.events.filter((e) => e.recordName === balanceRecord('TransferReversed') && e.value.correlationId === correlationId);
    expect(reversedEvents.map((e) => e.headers.ce_id)).toEqual([reversedEvent.headers.ce_id, reversedEvent.headers.ce_id]);
    expect(reversedEvents[1].value).toEqual(reversedEvent.value);
    // its note taken out of the sweeper's due-set: the sweeper does not publish it again
    expect(await fx.service.redis.zrange(transferDueKey(fx.config.redis.keyPrefix), 0, -1)).not.toEqual(expect.arrayContaining([expect.stringContaining(reversedMeta.commandId)]));
    // A number of another customer is refused the same way.
    const stranger = await createActiveSubscription(balance.subscriptions);
    errorOf(await client.send('TransferBalance', { ...refused, toGpsi: stranger.gpsi, toSubBalanceInstId: dataOf(stranger) }, customer), 'CONFLICT');
    expect(await remainingOf(from)).toBe(5_074_000);
    expect(await remainingOf(stranger)).toBe(5_120_000);
  });

  it('the sweeper finishes a transfer left pending after its debit, once across instances: completed when the target takes it, reversed when not', async () => {
    const from = await createActiveSubscription(balance.subscriptions);
    const to = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: from.wholesaleCustomerId });
    const customer = from.wholesaleCustomerId;
    const remainingOf = async (sub: TestSubscription) => (await balance.balances.queryBalances(sub.gpsi, [customer])).balances.find((b) => b.subBalanceInstId === dataOf(sub))!.remaining;
    const ledgerOf = async (sub: TestSubscription) =>
      (await balance.balances.history(sub.gpsi, [customer], 50)).filter((e) => e.operation.startsWith('Transfer')).map((e) => [e.operation, e.change, e.quantity]);
    // A worker that noted and debited a transfer, then died: the command never comes back (the partner gave up).
    const leavePending = async (order: { toSubBalanceInstId: string; amount: number }) => {
      const command = { gpsi: from.gpsi, subBalanceInstId: dataOf(from), toGpsi: to.gpsi, ...order };
      const correlationId = randomUUID();
      const meta = transferMetaOf(command, customer, correlationId);
      const transfer = { subBalanceInstId: dataOf(from), toGpsi: to.gpsi, toSubBalanceInstId: order.toSubBalanceInstId, amount: order.amount * 1000 };
      await balance.transfers.note(meta, transfer);
      await balance.transfers.debit(meta, transfer);
      return meta.commandId;
    };
    const completed = await leavePending({ toSubBalanceInstId: dataOf(to), amount: 20 });
    const reversed = await leavePending({ toSubBalanceInstId: `${to.gpsi}-1`, amount: 7 }); // the target's Voice: refused
    expect(await remainingOf(from)).toBe(5_093_000);

    // Two more sweepers beside the service's, as other instances would be.
    const published: OutgoingMessage[] = [];
    const sweepers = [1, 2].map(() =>
      createTransferSweeper({
        store: createRedisTransferSweepStore(fx.service.redis, { keyPrefix: fx.config.redis.keyPrefix }),
        transfers: balance.transfers,
        publish: async (messages) => void published.push(...messages),
        log: pino({ level: 'silent' }),
        settings: { pollIntervalMs: 20, batchSize: 100, leaseMs: 30_000 },
      }),
    );
    const transferEvents = (transferId: string, type = 'BalanceTransferred') => [
      ...client.events.filter((e) => e.recordName === balanceRecord(type) && e.value.transferId === transferId).map((e) => e.value),
      ...published.filter((m) => m.recordName === balanceRecord(type) && (m.value as { transferId: string }).transferId === transferId).map((m) => m.value),
    ];
    const stateOf = (id: string) => fx.service.redis.hget(subscriberKeys(fx.config.redis.keyPrefix, from.gpsi).transfers, id);
    sweepers.forEach((sweeper) => sweeper.start());
    try {
      const deadline = Date.now() + 15_000;
      const settled = async () => (await stateOf(completed))?.includes('|completed|') && (await stateOf(reversed))?.includes('|reversed|');
      while (!(await settled()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await stateOf(completed)).toMatch(/^1\|completed\|/);
      expect(await stateOf(reversed)).toMatch(/^1\|reversed\|/);
      const deadlineEvent = Date.now() + 10_000;
      while ((transferEvents(completed).length === 0 || transferEvents(reversed, 'TransferReversed').length === 0) && Date.now() < deadlineEvent) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 1000)); // every sweeper polled again meanwhile
    } finally {
      await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
    }
    // All or nothing, once: 20 MB moved, the 7 MB given back; one event each.
    expect(await remainingOf(from)).toBe(5_100_000);
    expect(await remainingOf(to)).toBe(5_140_000);
    expect((await ledgerOf(from)).sort()).toEqual([
      ['TransferBalance', 'Subtract', 20_000],
      ['TransferBalance', 'Subtract', 7_000],
      ['TransferReversal', 'Add', 7_000],
    ]);
    expect(await ledgerOf(to)).toEqual([['TransferBalance', 'Add', 20_000]]);
    expect(transferEvents(completed)).toHaveLength(1);
    expect(transferEvents(completed)[0]).toMatchObject({ gpsi: from.gpsi, toGpsi: to.gpsi, amount: 20 });
    expect(transferEvents(reversed)).toHaveLength(0);
    expect(transferEvents(reversed, 'TransferReversed')).toHaveLength(1);
    expect(transferEvents(reversed, 'TransferReversed')[0]).toMatchObject({
      gpsi: from.gpsi,
      toGpsi: to.gpsi,
      amount: 7,
      reason: 'toSubBalanceInstId is On-Net Voice in Min, not On-Net Data in MB',
    });
    expect(transferEvents(completed, 'TransferReversed')).toHaveLength(0);
    // Nothing left for a sweeper to look at.
    expect(await fx.service.redis.zcard(transferDueKey(fx.config.redis.keyPrefix))).toBe(0);
  });

  it("sweeps on Redis's clock: a transfer noted by a worker 120 s behind is not taken by a sweeper 120 s ahead before its sweep age", async () => {
    const { keyPrefix, balance: own } = isolatedBalance();
    const from = await createActiveSubscription(own.subscriptions);
    const to = await createActiveSubscription(own.subscriptions, { wholesaleCustomerId: from.wholesaleCustomerId });
    const command = { gpsi: from.gpsi, subBalanceInstId: dataOf(from), toGpsi: to.gpsi, toSubBalanceInstId: dataOf(to), amount: 3 };
    const meta = transferMetaOf(command, from.wholesaleCustomerId, randomUUID());
    const transfer = { subBalanceInstId: dataOf(from), toGpsi: to.gpsi, toSubBalanceInstId: dataOf(to), amount: 3000 };
    // The handler's first two steps on a worker whose clock is behind; it is still working on the third.
    const realDateNow = Date.now.bind(Date);
    const before = await redisNow();
    const behind = jest.spyOn(Date, 'now').mockImplementation(() => realDateNow() - SKEW_MS);
    try {
      await own.transfers.note(meta, transfer);
    } finally {
      behind.mockRestore();
    }
    const after = await redisNow();
    await own.transfers.debit(meta, transfer);
    const score = Number(await fx.service.redis.zscore(transferDueKey(keyPrefix), (await fx.service.redis.zrange(transferDueKey(keyPrefix), 0, 0))[0]));
    expect(score).toBeGreaterThanOrEqual(before + SWEEP_AFTER_MS);
    expect(score).toBeLessThanOrEqual(after + SWEEP_AFTER_MS);

    const published: OutgoingMessage[] = [];
    const ahead = createTransferSweeper({
      // The worker's own clock, which the sweeper once read (`realNow`): a sweeper that reads it again fails here.
      ...{ realNow: () => realDateNow() + SKEW_MS },
      store: createRedisTransferSweepStore(fx.service.redis, { keyPrefix }),
      transfers: own.transfers,
      publish: async (messages) => void published.push(...messages),
      log: pino({ level: 'silent' }),
      settings: { pollIntervalMs: 50, batchSize: 100, leaseMs: 30_000 },
    });
    const stateOf = async () => (await fx.service.redis.hget(subscriberKeys(keyPrefix, from.gpsi).transfers, meta.commandId))?.split('|')[1];
    expect(await ahead.tick()).toBe(0);
    expect(await stateOf()).toBe('pending');
    // Past its sweep age on Redis's clock: the sweeper finishes it, once.
    while ((await redisNow()) < score) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ahead.tick()).toBe(1);
    expect(await stateOf()).toBe('completed');
    expect(published.map((m) => m.recordName)).toEqual([balanceRecord('BalanceTransferred')]);
  });

  it('a worker of the release before reads and changes balances holding reservations (the <n>r field it does not know)', async () => {
    const previous = createPreviousRelease({ config: fx.config, catalog: fx.service.catalog, redis: fx.service.redis });
    const sub = await createActiveSubscription(balance.subscriptions);
    const id = dataOf(sub);
    const meta = (operation: string): CommandMeta => {
      const correlationId = randomUUID();
      return {
        gpsi: sub.gpsi,
        wholesaleCustomerId: sub.wholesaleCustomerId,
        commandId: commandIdOf(sub.wholesaleCustomerId, operation, correlationId),
        correlationId,
        operation,
        at: new Date().toISOString(),
      };
    };
    await balance.reservations.reserve(meta('ReserveBalance'), { reservationId: 'r-1', subBalanceInstId: id, amount: 1_000_000, ttlMs: 600_000 });
    const visible = [sub.wholesaleCustomerId];
    const current = await balance.balances.queryBalances(sub.gpsi, visible);
    expect(current.balances.find((b) => b.subBalanceInstId === id)).toMatchObject({ remaining: 5_120_000, reserved: 1_000_000 });
    expect((await previous.balances.queryBalances(sub.gpsi, visible)).balances).toEqual(current.balances.map(({ reserved: _reserved, ...b }) => b));
    const add = { subBalanceInstId: id, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Add' as const, quantity: 5_000 };
    await previous.balances.updateBalances(meta('UpdateBalances'), { actions: [add], problems: [] });
    expect((await balance.balances.queryBalances(sub.gpsi, visible)).balances.find((b) => b.subBalanceInstId === id)).toMatchObject({ remaining: 5_125_000, reserved: 1_000_000 });
  });
});
