import { randomUUID } from 'node:crypto';
import { loadNpSimulatorConfig } from '../../src/config';
import { createBalanceComponents } from '../../src/app/balance';
import { loadCatalog } from '../../src/app/service';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { startNpSimulator, type NpSimulator } from '../../src/simulator/np-simulator';
import { PORTIN_EVENT_RECORD } from '../../src/domain/portin/records';
import { HEADER } from '../../src/worker/envelope';
import { createTopics, envFor, testLogger, TestRequester, TopicReader, type Reply } from '../support/harness';
import { createCommand, gpsiEndingIn, PORTIN } from '../support/portin/journey';
import { WorkerProcess } from '../support/worker-process';
import { FAULT_CUSTOMER, faultConfig, partnerToken, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { groupProgress } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14, item 4: the NP path under a worker SIGKILL. 20 ports answered by the NP simulator; the worker is
 * killed while it handles their responses (commits every 5 s, so the kill leaves handled responses
 * uncommitted) and a second one takes over, handling those again. Every port must end as a clean run ends
 * (status, subscription), with one event id per transition and one SubscriptionActivated per completed port.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SHAPES = [
  { name: 'completed', suffix: '21', count: 10, statuses: ['CONFIRMED', 'COMPLETED'], subscription: 'ACTIVE' },
  { name: 'delayed, then completed', suffix: '14', count: 5, statuses: ['DELAYED', 'CONFIRMED', 'COMPLETED'], subscription: 'ACTIVE' },
  { name: 'rejected', suffix: '13', count: 5, statuses: ['REJECTED'], subscription: 'PENDING' },
];

describe('NP responses when the worker is killed while handling them', () => {
  const workers: WorkerProcess[] = [];
  let simulator: NpSimulator | undefined;
  let requester: TestRequester | undefined;
  let eventsReader: TopicReader | undefined;
  let redis: RedisClient | undefined;

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.signal('SIGKILL')));
    await eventsReader?.stop();
    await requester?.stop();
    await simulator?.stop();
    redis?.disconnect();
  });

  it('every port ends as in a clean run, one event id per transition', async () => {
    const began = Date.now();
    const config = await faultConfig({ KAFKA_COMMIT_INTERVAL_MS: '5000' });
    await createTopics(config);
    workers.push(await WorkerProcess.start(workerEnv(config), 'np-worker-1'));
    simulator = await startNpSimulator(
      loadNpSimulatorConfig({ ...process.env, ...envFor(config), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: '100000' }),
      { log: testLogger(config) },
    );
    await simulator.joined;
    requester = await TestRequester.start(config, undefined, { tokenProvider: partnerToken });
    const events: Reply[] = [];
    eventsReader = await TopicReader.start(config, [config.topics.portinEvents, config.topics.balanceEvents], (event) => events.push(event));
    const ports = SHAPES.flatMap((shape) => Array.from({ length: shape.count }, () => ({ shape, gpsi: gpsiEndingIn(shape.suffix) })));
    const expectedResponses = ports.reduce((sum, p) => sum + p.shape.statuses.length + 1, 0); // + OrderIdAssigned each
    const npHandled = (w: WorkerProcess) => w.handled.filter((h) => h.topic === config.topics.npResponses).length;

    const created = await Promise.all(
      ports.map((p) =>
        requester!.send('portinCommands', PORTIN('CreatePortIn'), createCommand(p.gpsi), { key: p.gpsi, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } }),
      ),
    );
    expect(created.map((r) => r.value.status)).toEqual(ports.map(() => 'Success'));
    // kill in the middle of the responses: after a third of them was handled
    const deadline = Date.now() + 60_000;
    while (npHandled(workers[0]!) < expectedResponses / 3) {
      if (Date.now() > deadline) throw new Error(`worker 1 handled only ${npHandled(workers[0]!)} NP responses`);
      await sleep(20);
    }
    await workers[0]!.signal('SIGKILL');
    const killedAfter = npHandled(workers[0]!);
    const atKill = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
    workers.push(await WorkerProcess.start(workerEnv(config), 'np-worker-2'));

    const portEvents = (gpsi: string) => events.filter((e) => e.key === gpsi && e.recordName === PORTIN_EVENT_RECORD);
    const settled = (p: (typeof ports)[number]) => portEvents(p.gpsi).some((e) => e.value.portStatus === p.shape.statuses.at(-1));
    const settleBy = Date.now() + 90_000;
    while (!ports.every(settled)) {
      if (Date.now() > settleBy) throw new Error(`ports not settled: ${ports.filter((p) => !settled(p)).length}`);
      await sleep(100);
    }
    for (;;) {
      const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
      if (progress.committed === progress.end) break;
      if (Date.now() > settleBy) throw new Error(`NP responses not all committed: ${JSON.stringify(progress)}`);
      await sleep(250);
    }
    await sleep(1000); // a late copy of an event would arrive now

    redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    const subscriptions = createBalanceComponents({ config, catalog: loadCatalog(config.catalogFile), redis }).subscriptions;
    const problems: string[] = [];
    let transitions = 0;
    let eventRecords = 0;
    for (const p of ports) {
      const { value } = await requester.send('portinCommands', PORTIN('QueryPortIn'), { gpsi: p.gpsi }, { key: p.gpsi, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
      const status = value.portStatus;
      const subscription = (await subscriptions.status(p.gpsi))?.status;
      // one event id per transition: the distinct ids, in order, name each expected status once
      const ids = [...new Set(portEvents(p.gpsi).map((e) => e.headers.ce_id))];
      const statuses = ids.map((id) => portEvents(p.gpsi).find((e) => e.headers.ce_id === id)!.value.portStatus as string).filter((s) => s !== 'OPEN');
      const activations = new Set(events.filter((e) => e.key === p.gpsi && e.recordName.endsWith('SubscriptionActivated')).map((e) => e.headers.ce_id)).size;
      transitions += statuses.length;
      eventRecords += portEvents(p.gpsi).length;
      const expected = { status: p.shape.statuses.at(-1), subscription: p.shape.subscription, statuses: p.shape.statuses, activations: p.shape.subscription === 'ACTIVE' ? 1 : 0 };
      const got = { status, subscription, statuses, activations };
      if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`${p.shape.name} ${p.gpsi}: ${JSON.stringify(got)}`);
    }
    const secondHandled = npHandled(workers[1]!);
    report('NP responses, worker SIGKILL', { sent: expectedResponses, replied: ports.length, applied: transitions, duplicates: eventRecords - transitions - ports.length, lost: problems.length }, [
      `${ports.length} ports in ${SHAPES.length} shapes; sent = NP responses, replied = ports, applied = status changes (distinct event ids), duplicates = extra event records (same ids)`,
      `worker 1 killed after handling ${killedAfter} NP responses, ${atKill.committed} committed; worker 2 handled ${secondHandled}`,
      seconds(began),
    ]);
    expect(problems).toEqual([]);
    // killed in the middle: the second worker handled the rest, and what the first had handled but not committed
    expect(killedAfter).toBeLessThan(expectedResponses);
    expect(secondHandled).toBeGreaterThanOrEqual(atKill.end > 0 ? expectedResponses - atKill.committed : 1);
  });
});
