import { randomUUID } from 'node:crypto';
import { createTopics, envFor, testConfig, TestRequester } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

/**
 * Issue 46 item 6 on the real broker: a second worker started with the KAFKA_GROUP_INSTANCE_ID of a live
 * one (a copied manifest). Kafka gives the id to the newer member and answers the older one
 * FENCED_INSTANCE_ID; the older one stops with a line naming the setting and exit code 1 instead of
 * rejoining (which fenced the newer one in turn, 18 times in 45 s), and the newer one handles every command,
 * once. Both workers share one transactional id too (exactly-once): the older one's stopping ends that.
 */
const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';
const JOINED = '"joined the group"';

describe('two workers with one KAFKA_GROUP_INSTANCE_ID (real broker)', () => {
  // exactly-once: the two share a transactional id too, which the newer one's producer takes
  it.each(['at-least-once', 'exactly-once'])('%s: the older worker, fenced, stops with one line naming the setting (exit 1); the newer one handles every command once', async (delivery) => {
    const config = testConfig({ KAFKA_HEARTBEAT_INTERVAL_MS: '1000', KAFKA_SESSION_TIMEOUT_MS: '10000' });
    const instanceId = `worker-${randomUUID().slice(0, 8)}`;
    const env = { ...envFor(config), KAFKA_GROUP_INSTANCE_ID: instanceId, KAFKA_HEARTBEAT_INTERVAL_MS: '1000', KAFKA_SESSION_TIMEOUT_MS: '10000', KAFKA_DELIVERY: delivery };
    await createTopics(config);
    const requester = await TestRequester.start(config);
    const older = await WorkerProcess.start(env, 'older');
    let newer: WorkerProcess | undefined;
    try {
      const ask = () => requester.send('portinCommands', ELIGIBILITY, { gpsi: `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` });
      expect((await ask()).value.status).toBe('Success'); // the older one is in the group and answering

      newer = await WorkerProcess.start(env, 'newer');
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([older.exited, new Promise((resolve) => (timer = setTimeout(() => resolve('still running after 20 s'), 20_000)))]).finally(() => clearTimeout(timer));
      expect(exit).toBe(1);
      const naming = older
        .output()
        .split('\n')
        .filter((line) => line.includes(`KAFKA_GROUP_INSTANCE_ID ${instanceId} is in use by another worker`));
      expect(naming.some((line) => line.includes('"level":60'))).toBe(true); // the fatal line, before the exit

      const replies = await Promise.all(Array.from({ length: 6 }, ask));
      expect(replies.map((r) => r.value.status)).toEqual(Array(6).fill('Success'));
      await new Promise((resolve) => setTimeout(resolve, 3000)); // three heartbeats: a fenced newer worker would rejoin or stop now
      const ids = replies.map((r) => r.headers['X-Correlation-Id']);
      expect(ids.map((id) => requester.unclaimed(id))).toEqual(ids.map(() => undefined)); // no second reply
      expect(ids.map((id) => newer!.handled.filter((h) => h.correlationId === id).length)).toEqual(ids.map(() => 1));
      expect([newer.running, newer.output().split(JOINED).length - 1]).toEqual([true, 1]); // joined once: never fenced back
    } finally {
      await older.signal('SIGKILL');
      await newer?.signal('SIGKILL');
      await requester.stop();
    }
  });
});
