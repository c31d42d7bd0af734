import { faultConfig } from './support/fault-config';
import { NP_SHAPES, NpRig, shapedPorts } from './support/np-rig';
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
    const { ports, responses: expectedResponses } = shapedPorts();
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

    await rig.waitSettled(ports, 90_000);

    const { problems, transitions, eventRecords } = await rig.compareWithCleanRun(ports);
    const secondHandled = npHandled(second);
    report('NP responses, worker SIGKILL', { sent: expectedResponses, replied: ports.length, applied: transitions, duplicates: eventRecords - transitions - ports.length, lost: problems.length }, [
      `${ports.length} ports in ${NP_SHAPES.length} shapes; sent = NP responses, replied = ports, applied = status changes (distinct event ids), duplicates = extra event records (same ids), lost = ports not as in a clean run`,
      `worker 1 killed after handling ${killedAfter} NP responses, ${atKill.committed} committed; worker 2 handled ${secondHandled}`,
      seconds(began),
    ]);
    expect(problems).toEqual([]);
    // killed in the middle: the second worker handled the rest, and what the first had handled but not committed
    expect(killedAfter).toBeLessThan(expectedResponses);
    expect(secondHandled).toBeGreaterThanOrEqual(expectedResponses - atKill.committed);
  });
});
