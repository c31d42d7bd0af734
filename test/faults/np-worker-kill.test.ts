import { gpsiEndingIn } from '../support/portin/journey';
import { faultConfig } from './support/fault-config';
import { NpRig } from './support/np-rig';
import { report, seconds } from './support/report';
import { createTopics } from '../support/harness';
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
  let rig: NpRig | undefined;

  afterAll(async () => {
    await rig?.stop();
  });

  it('every port ends as in a clean run, one event id per transition', async () => {
    const began = Date.now();
    const config = await faultConfig({ KAFKA_COMMIT_INTERVAL_MS: '5000' });
    await createTopics(config);
    rig = await NpRig.start(config);
    const first = await rig.startWorker('np-worker-1');
    await rig.startSimulator();
    const ports = SHAPES.flatMap((shape) => Array.from({ length: shape.count }, () => ({ shape, gpsi: gpsiEndingIn(shape.suffix) })));
    const expectedResponses = ports.reduce((sum, p) => sum + p.shape.statuses.length + 1, 0); // + OrderIdAssigned each
    const npHandled = (w: typeof first) => w.handled.filter((h) => h.topic === config.topics.npResponses).length;

    expect(await rig.createPortIns(ports.map((p) => p.gpsi))).toEqual(ports.map(() => 'Success'));
    // kill in the middle of the responses: after a third of them was handled
    const deadline = Date.now() + 60_000;
    while (npHandled(first) < expectedResponses / 3) {
      if (Date.now() > deadline) throw new Error(`worker 1 handled only ${npHandled(first)} NP responses`);
      await sleep(20);
    }
    await first.signal('SIGKILL');
    const killedAfter = npHandled(first);
    const atKill = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
    const second = await rig.startWorker('np-worker-2');

    const settled = (p: (typeof ports)[number]) => rig!.portEvents(p.gpsi).some((e) => e.value.portStatus === p.shape.statuses.at(-1));
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

    const problems: string[] = [];
    let transitions = 0;
    let eventRecords = 0;
    for (const p of ports) {
      const events = rig.portEvents(p.gpsi);
      // one event id per transition: the distinct ids, in order, name each expected status once
      const ids = [...new Set(events.map((e) => e.headers.ce_id))];
      const statuses = ids.map((id) => events.find((e) => e.headers.ce_id === id)!.value.portStatus as string).filter((s) => s !== 'OPEN');
      transitions += statuses.length;
      eventRecords += events.length;
      const got = { status: await rig.portStatus(p.gpsi), subscription: await rig.subscriptionStatus(p.gpsi), statuses, activations: rig.activationIds(p.gpsi) };
      const expected = { status: p.shape.statuses.at(-1), subscription: p.shape.subscription, statuses: p.shape.statuses, activations: p.shape.subscription === 'ACTIVE' ? 1 : 0 };
      if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`${p.shape.name} ${p.gpsi}: ${JSON.stringify(got)}`);
    }
    const secondHandled = npHandled(second);
    report('NP responses, worker SIGKILL', { sent: expectedResponses, replied: ports.length, applied: transitions, duplicates: eventRecords - transitions - ports.length, lost: problems.length }, [
      `${ports.length} ports in ${SHAPES.length} shapes; sent = NP responses, replied = ports, applied = status changes (distinct event ids), duplicates = extra event records (same ids), lost = ports not as in a clean run`,
      `worker 1 killed after handling ${killedAfter} NP responses, ${atKill.committed} committed; worker 2 handled ${secondHandled}`,
      seconds(began),
    ]);
    expect(problems).toEqual([]);
    // killed in the middle: the second worker handled the rest, and what the first had handled but not committed
    expect(killedAfter).toBeLessThan(expectedResponses);
    expect(secondHandled).toBeGreaterThanOrEqual(expectedResponses - atKill.committed);
  });
});
