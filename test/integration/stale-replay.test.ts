import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { BalanceComponents } from '../../src/app/balance';
import { balanceComponentsOf, BalanceClient } from '../support/balance-client';
import { subscriberState } from '../support/redis-snapshot';
import { createActiveSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * Issue 14, defect 3: a replay older than the idempotency window — here a real consumer-group reset to
 * the beginning of the command topic — found no outcome records any more (IDEMPOTENCY_TTL_SECONDS) and
 * applied every UpdateBalances again. Commands older than the window minus STALE_COMMAND_MARGIN_SECONDS
 * are now answered STALE_COMMAND and change nothing. A window of 4 s (TTL 6 s, margin 2 s) keeps it short.
 */
const TTL_SECONDS = 6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a replay older than the idempotency window, over the real stack', () => {
  let client: BalanceClient;
  let balance: BalanceComponents;

  const fx = useService({ env: { IDEMPOTENCY_TTL_SECONDS: String(TTL_SECONDS), STALE_COMMAND_MARGIN_SECONDS: '2' } });

  beforeAll(async () => {
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  it('after a consumer-group reset the old UpdateBalances are answered STALE_COMMAND and the balance does not change', async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: 'alpha' });
    const add = { gpsi: sub.gpsi, balances: [{ subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: 1, unitType: 'MB' }] };
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const before = await subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi);
    for (const id of ids) expect((await client.send('UpdateBalances', add, 'alpha', id)).value.status).toBe('Success');
    const applied = await subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi);
    expect(applied).not.toEqual(before);

    await fx.stopService();
    await sleep(TTL_SECONDS * 1000 + 500); // the outcome records of the three commands have expired
    const kafka = new Kafka({ clientId: 'stale-replay-test', brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.resetOffsets({ groupId: fx.config.groupId, topic: fx.config.topics.balanceCommands, earliest: true });
    await admin.disconnect();

    const replayed = ids.map((id) => client.requester.awaitReply(id));
    await fx.restart();
    for (const reply of await Promise.all(replayed)) {
      expect(reply.value.error).toMatchObject({ code: 'STALE_COMMAND', message: expect.stringContaining('it was not applied') });
    }
    expect(await subscriberState(fx.service.redis, fx.config.redis.keyPrefix, sub.gpsi)).toEqual(applied);
  });
});
