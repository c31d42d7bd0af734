import { randomUUID } from 'node:crypto';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { createRedisPortInStore } from '../../src/adapters/redis/portin-store';
import type { PortInStore, RecordedOutcome } from '../../src/handlers/portin/ports';
import { requestIn } from '../support/portin/fixtures';
import { redisTopologies } from '../support/redis-topologies';

/**
 * The port-in Lua scripts against a real Redis, single and Cluster: compare-and-set, recorded outcomes,
 * history, claims, schedule. On the Cluster every script must find its keys in one slot.
 */
describe.each(redisTopologies())('Redis port-in store ($name)', (topology) => {
  let redis: RedisClient;
  let store: PortInStore;
  const GPSI = '19459986891';
  const outcome = (tag: string): RecordedOutcome => ({ reply: { tag }, messages: [], followUps: [] });

  beforeAll(async () => {
    const env = await topology.env();
    redis = createRedisClient({ urls: (env.REDIS_URL ?? (process.env.REDIS_URL as string)).split(','), cluster: env.REDIS_CLUSTER === 'true' });
  });

  beforeEach(() => {
    store = createRedisPortInStore(redis, { keyPrefix: `t${randomUUID().slice(0, 8)}:`, outcomeTtlSeconds: 60, claimLeaseMs: 1000 });
  });

  afterAll(async () => {
    await redis?.quit();
    await topology.stop();
  });

  it('writes only when the current request is as expected, records the outcome, and replays it', async () => {
    const open = requestIn('OPEN', { portOrderId: undefined });
    expect(await store.write(GPSI, 'c1', { requestId: null }, 'replace', open, outcome('created'))).toEqual({ kind: 'written', outcome: outcome('created') });
    expect(await store.current(GPSI)).toEqual(JSON.parse(JSON.stringify(open)));
    expect(await store.write(GPSI, 'c2', { requestId: null }, 'replace', open, outcome('again'))).toEqual({ kind: 'stale' });
    const confirmed = { ...open, portStatus: 'CONFIRMED' as const, confirmedDueDate: '2026-03-05T10:00:00.000Z' };
    expect(await store.write(GPSI, 'c3', { requestId: open.requestId, portOrderVersion: 1, portStatus: 'DELAYED' }, 'update', confirmed, outcome('x'))).toEqual({ kind: 'stale' });
    expect((await store.write(GPSI, 'c3', { requestId: open.requestId, portOrderVersion: 1, portStatus: 'OPEN' }, 'update', confirmed, outcome('confirmed'))).kind).toBe('written');
    // a replay answers the recorded outcome whatever the state is now
    expect(await store.write(GPSI, 'c1', { requestId: null }, 'replace', open, outcome('ignored'))).toEqual({ kind: 'replayed', outcome: outcome('created') });
    expect((await store.readForChange(GPSI, 'c3')).recorded).toEqual(outcome('confirmed'));
    expect((await store.current(GPSI))!.portStatus).toBe('CONFIRMED');
  });

  it('drops optional fields a change clears, and moves a replaced request to the history', async () => {
    const first = requestIn('REJECTED', { reasonCode: '7A', reasonDescription: 'not portable' });
    await store.write(GPSI, 'a', { requestId: null }, 'replace', first, outcome('a'));
    const cancelled = { ...first, portStatus: 'CANCELLED' as const, reasonCode: undefined, reasonDescription: undefined, secrets: {} };
    await store.write(GPSI, 'b', { requestId: first.requestId, portOrderVersion: 1, portStatus: 'REJECTED' }, 'update', cancelled, outcome('b'));
    expect(await store.current(GPSI)).not.toHaveProperty('reasonCode');
    const second = requestIn('OPEN', { requestId: 'req-2', partnerTransactionId: 'PTX-2' });
    expect((await store.write(GPSI, 'c', { requestId: first.requestId, portOrderVersion: 1, portStatus: 'CANCELLED' }, 'replace', second, outcome('c'))).kind).toBe('written');
    expect((await store.byRequest({ gpsi: GPSI, requestId: first.requestId }))!.portStatus).toBe('CANCELLED');
    expect((await store.byRequest({ gpsi: GPSI, requestId: 'req-2' }))!.partnerTransactionId).toBe('PTX-2');
    expect(await store.byRequest({ gpsi: GPSI, requestId: 'nope' })).toBeUndefined();
  });

  it('claims a partner transaction once: duplicate, mismatch, busy, takeover after the lease, release', async () => {
    const now = new Date('2026-03-04T10:00:00Z');
    const claim = (commandId: string, payloadHash = 'h', at = now) => store.claimTransaction('WC{1}', 'PTX}1', { commandId, payloadHash, gpsi: GPSI, requestId: `r-${commandId}`, now: at });
    expect(await claim('c1')).toEqual({ kind: 'claimed', requestId: 'r-c1' });
    expect(await claim('c1')).toEqual({ kind: 'claimed', requestId: 'r-c1' });
    expect(await claim('c2')).toEqual({ kind: 'busy' });
    expect(await claim('c2', 'other')).toEqual({ kind: 'mismatch' });
    expect(await claim('c2', 'h', new Date(now.getTime() + 1500))).toEqual({ kind: 'claimed', requestId: 'r-c1' });
    await store.settleTransaction('WC{1}', 'PTX}1', 'c1', { no: 'the claim moved on' });
    await store.settleTransaction('WC{1}', 'PTX}1', 'c2', { status: 'Success' });
    expect(await claim('c3')).toEqual({ kind: 'duplicate', reply: { status: 'Success' } });
    expect(await claim('c2')).toEqual({ kind: 'claimed', requestId: 'r-c1' });
    expect(await store.findTransaction('WC{1}', 'PTX}1')).toEqual({ gpsi: GPSI, requestId: 'r-c1' });
    await store.releaseTransaction('WC{1}', 'PTX}1', 'c2');
    expect(await store.findTransaction('WC{1}', 'PTX}1')).toBeDefined();

    await store.claimTransaction('WC1', 'PTX-9', { commandId: 'c9', payloadHash: 'h', gpsi: GPSI, requestId: 'r9', now });
    await store.releaseTransaction('WC1', 'PTX-9', 'c9');
    expect(await store.findTransaction('WC1', 'PTX-9')).toBeUndefined();
  });

  it('indexes a port order once', async () => {
    expect(await store.indexPortOrder('PO-1', { gpsi: GPSI, requestId: 'r1' })).toBe(true);
    expect(await store.indexPortOrder('PO-1', { gpsi: GPSI, requestId: 'r1' })).toBe(true);
    expect(await store.indexPortOrder('PO-1', { gpsi: GPSI, requestId: 'r2' })).toBe(false);
    expect(await store.findPortOrder('PO-1')).toEqual({ gpsi: GPSI, requestId: 'r1' });
  });

  it('leases due expiries so two sweepers never take the same one at once', async () => {
    const now = new Date('2026-03-04T10:00:00Z');
    await store.scheduleExpiry('a', new Date(now.getTime() - 1));
    await store.scheduleExpiry('b', new Date(now.getTime() + 60_000));
    expect(await store.claimDueExpiries(now, 5000, 10)).toEqual(['a']);
    expect(await store.claimDueExpiries(now, 5000, 10)).toEqual([]);
    expect(await store.claimDueExpiries(new Date(now.getTime() + 5001), 5000, 10)).toEqual(['a']);
    await store.completeExpiry('a');
    expect(await store.claimDueExpiries(new Date(now.getTime() + 120_000), 5000, 10)).toEqual(['b']);
  });
});
