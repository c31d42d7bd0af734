import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { webhookKeys } from '../../src/adapters/redis/keys';
import { LETTER_FORMAT, RedisWebhookStore } from '../../src/adapters/redis/webhook-store';
import type { WebhookEvent } from '../../src/webhooks/ports';

// The webhook dispatcher's dead letters and redeliveries carry their format, so a rolling restart is safe:
// entries written before the field existed read as format 1, and a newer format stops the reader instead of
// being misread. On a real Redis, with entries written as the previous release wrote them (no format field).
describe('webhook dead letters across a rolling restart', () => {
  let server: LocalRedis;
  let redis: RedisClient;
  let store: RedisWebhookStore;
  const prefix = 'wl-test:';
  const event: WebhookEvent = { id: 'ce-1', key: '19459986891', topic: 'wholesale.partner.P1.portin.events.v1', partition: 0, offset: '7', body: '{"id":"ce-1"}' };

  beforeAll(async () => {
    server = await startLocalRedis({ appendOnly: false });
    redis = createRedisClient({ urls: [server.url], cluster: false });
    store = new RedisWebhookStore(redis, prefix);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.dispose();
  });

  it('reads and redelivers a dead letter of the previous release (no format field), and writes its own with the format', async () => {
    const keys = webhookKeys(prefix, 'P1');
    // as 938e116 wrote it
    const oldId = await redis.xadd(keys.deadLetters, '*', 'event', JSON.stringify(event), 'reason', 'HTTP 500', 'attempts', '9', 'failedAt', '2026-11-28T00:00:00Z');
    await store.add('P1', { event: { ...event, id: 'ce-2' }, reason: 'HTTP 503', attempts: 3, failedAt: '2026-11-28T00:01:00Z' });

    const letters = await store.deadLetters('P1');
    expect(letters.map(({ id, event: e, reason, attempts }) => ({ id: id === oldId ? 'old' : 'new', event: e.id, reason, attempts }))).toEqual([
      { id: 'old', event: 'ce-1', reason: 'HTTP 500', attempts: 9 },
      { id: 'new', event: 'ce-2', reason: 'HTTP 503', attempts: 3 },
    ]);
    const [, newFields] = (await redis.xrange(keys.deadLetters, '-', '+')).at(-1)!;
    expect(newFields.slice(0, 2)).toEqual(['format', String(LETTER_FORMAT)]);

    await store.redeliver('P1', '-', '+');
    expect((await store.redeliveries('P1', 10)).map((r) => r.event)).toEqual([event, { ...event, id: 'ce-2' }]);
  });

  it('refuses an entry of a newer format, naming it, in both streams', async () => {
    const keys = webhookKeys(prefix, 'P2');
    const newer = String(LETTER_FORMAT + 1);
    const letterId = await redis.xadd(keys.deadLetters, '*', 'format', newer, 'event', JSON.stringify(event), 'reason', 'x', 'attempts', '1', 'failedAt', 'y');
    await expect(store.deadLetters('P2')).rejects.toThrow(`stored webhook entry ${letterId} of format ${newer}: newer than this reader reads (up to ${LETTER_FORMAT})`);
    const redeliveryId = await redis.xadd(keys.redeliveries, '*', 'format', newer, 'event', JSON.stringify(event), 'deadLetter', letterId!);
    await expect(store.redeliveries('P2', 10)).rejects.toThrow(`stored webhook entry ${redeliveryId} of format ${newer}`);
  });
});
