import { join } from 'node:path';
import { createRedisClient } from '../../src/adapters/redis/client';
import { portOrderKey } from '../../src/adapters/redis/port-order-keys';
import { portInKeys } from '../../src/adapters/redis/portin-keys';
import { decodePortOrder } from '../../src/domain/port-orders/order';
import { createTopics } from '../support/harness';
import { createCommand, gpsiEndingIn } from '../support/portin/journey';
import { HEADER } from '../../src/contract/headers';
import { FAULT_CUSTOMER, faultConfig, faultPartnerTopics } from './support/fault-config';
import { NpRig } from './support/np-rig';
import { report, seconds } from './support/report';
import { drainTopic, groupProgress, headerString } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 48: the worker dies in the middle of a 100-number CreatePortOrder — SIGKILLed (support/
 * crash-before-script.cjs) just before it writes the port-in of the order's 61st number, dozens of numbers
 * written already. A second worker gets the order again from Kafka and resumes it: every number has exactly
 * one port-in (none written twice: no number's history holds a request; none lost), one SubmitPortRequest
 * each, one reply, and the order is CREATED with each number's request.
 */
const HOOK = join(__dirname, 'support', 'crash-before-script.cjs');
const SIZE = 100;

describe('the worker killed in the middle of a port order', () => {
  let rig: NpRig | undefined;
  afterAll(async () => {
    await rig?.stop();
  });

  it('a second worker resumes the redelivered order: each number created once, none lost, one reply', async () => {
    const began = Date.now();
    const config = await faultConfig();
    await createTopics(config);
    rig = await NpRig.start(config);
    const numbers = Array.from({ length: SIZE }, () => gpsiEndingIn('21'));
    const { partnerTransactionId: _pti, gpsi: _gpsi, ...shared } = createCommand(numbers[0]);
    void [_pti, _gpsi];
    const orderId = `ORD-CRASH-${numbers[0].slice(-6)}`;
    const crashing = await rig.startWorker('crash-mid-order', { CRASH_BEFORE_SCRIPT: 'portinWrite', CRASH_MATCH: numbers[60] }, [HOOK]);
    const replied = rig.portinCommand('CreatePortOrder', { ...shared, orderId, numbers: numbers.map((gpsi) => ({ gpsi })) }, orderId, 120_000);
    const exit = await crashing.exited;
    expect(crashing.output()).toContain('crash hook: SIGKILL');

    const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    try {
      const writtenBeforeCrash = (await Promise.all(numbers.map((gpsi) => redis.exists(portInKeys(config.redis.keyPrefix, gpsi).current)))).filter(Boolean).length;
      const second = await rig.startWorker('after-crash-mid-order');
      const { correlationId, reply } = await replied;
      for (let end = Date.now() + 30_000; ;) {
        const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.portinCommands);
        if (progress.committed === progress.end) break;
        if (Date.now() > end) throw new Error(`CreatePortOrder not committed: ${JSON.stringify(progress)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const submits = (await drainTopic(config.kafka.brokers, config.topics.npRequests)).filter((r) => numbers.includes(r.key?.toString() ?? ''));
      const perNumber = numbers.map((gpsi) => submits.filter((r) => r.key?.toString() === gpsi).length);
      const replies = (await drainTopic(config.kafka.brokers, faultPartnerTopics(config).portinReplies)).filter((r) => headerString(r, HEADER.correlationId) === correlationId).length;
      const keys = numbers.map((gpsi) => portInKeys(config.redis.keyPrefix, gpsi));
      const statuses = await Promise.all(keys.map((k) => redis.hget(k.current, 'portStatus')));
      const rewritten = (await Promise.all(keys.map((k) => redis.hlen(k.history)))).reduce((a, b) => a + b, 0);
      const order = decodePortOrder((await redis.get(portOrderKey(config.redis.keyPrefix, FAULT_CUSTOMER, orderId)))!);
      report(
        'CreatePortOrder, worker killed mid-order',
        {
          sent: 1,
          replied: replies > 0 ? 1 : 0,
          applied: statuses.filter((s) => s !== null).length,
          duplicates: rewritten,
          lost: statuses.filter((s) => s === null).length,
          copies: { replies: Math.max(0, replies - 1), npRequests: perNumber.reduce((n, c) => n + Math.max(0, c - 1), 0) },
        },
        [`${writtenBeforeCrash} of ${SIZE} numbers written before the kill (exit ${exit}); the second worker handled the order ${second.handled.length} time(s)`, seconds(began)],
      );
      expect(replies).toBe(1);
      expect(writtenBeforeCrash).toBeGreaterThan(0);
      expect(writtenBeforeCrash).toBeLessThan(SIZE);
      expect(reply).toMatchObject({ status: 'Success', orderId, numberCount: SIZE, createdCount: SIZE, refusedCount: 0 });
      expect(statuses.every((s) => s !== null)).toBe(true);
      expect(rewritten).toBe(0);
      expect(perNumber).toEqual(numbers.map(() => 1));
      expect(order).toMatchObject({ state: 'CREATED' });
      expect(order.numbers.every((n) => n.requestId !== undefined && n.refusal === undefined)).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
