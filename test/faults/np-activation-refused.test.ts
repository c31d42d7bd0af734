import { createTopics } from '../support/harness';
import { gpsiEndingIn } from '../support/portin/journey';
import { faultConfig } from './support/fault-config';
import { catalogWithout, NpRig } from './support/np-rig';
import { report, seconds } from './support/report';
import { groupProgress } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14, item 2, on the real stack: the activation that follows a port's completion fails — the worker
 * handling the NP responses runs with a catalog that no longer has the subscriptions' plan. The port's
 * transition is written (COMPLETED) and the activation refused; the response must then stay unprocessed
 * (not committed, not dead-lettered) until a worker with the plan back completes it: port COMPLETED,
 * subscription ACTIVE, exactly one activation applied per port (its ledger entry; its event at least once).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PLAN = 'WP-BASIC';
const PORTS = 5;

describe('the activation after a port completed refused (its plan left the catalog)', () => {
  let rig: NpRig | undefined;

  afterAll(async () => {
    await rig?.stop();
  });

  it('the NP response is held until the activation is done: COMPLETED + ACTIVE + one activation event', async () => {
    const began = Date.now();
    const config = await faultConfig();
    await createTopics(config);
    const withoutPlan = catalogWithout(config, PLAN);
    rig = await NpRig.start(config);
    const ports = Array.from({ length: PORTS }, () => gpsiEndingIn('21')); // the simulator confirms and completes these
    const statuses = () => Promise.all(ports.map((gpsi) => rig!.portStatus(gpsi)));
    const subscriptions = () => Promise.all(ports.map((gpsi) => rig!.subscriptionStatus(gpsi)));
    const npProgress = () => groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);

    // the ports are created by a worker with the full catalog; the NP side does not answer yet
    const full = await rig.startWorker('worker-full-catalog');
    const createReplies = await rig.createPortIns(ports, { wholesalePlanId: PLAN });
    expect(createReplies).toEqual(ports.map(() => 'Success'));
    await full.signal('SIGTERM');

    // a worker whose catalog lost the plan handles the NP responses
    const refusing = await rig.startWorker('worker-without-plan', { CATALOG_FILE: withoutPlan });
    await rig.startSimulator();
    // a port's ActivationComplete was tried: the port written COMPLETED, the activation refused. The record is
    // then retried and holds its partition (np-held-partition.test.ts: only it)
    const deadline = Date.now() + 60_000;
    while (!(await statuses()).includes('COMPLETED')) {
      if (Date.now() > deadline) throw new Error(`no port completed: ${(await statuses()).join(', ')}`);
      await sleep(200);
    }
    await sleep(5000); // the worker retries meanwhile; a dead letter or a commit would happen now
    const whileRefused = {
      ports: await statuses(),
      subscriptions: await subscriptions(),
      activations: (await Promise.all(ports.map((gpsi) => rig!.activationsApplied(gpsi)))).reduce((sum, n) => sum + n, 0),
      activationEvents: ports.reduce((sum, gpsi) => sum + rig!.activationRecords(gpsi), 0),
      progress: await npProgress(),
      deadLetters: refusing.outcomes().DEAD_LETTER ?? 0,
    };
    await refusing.signal('SIGTERM');

    // the plan is back: the next worker completes what was held
    await rig.startWorker('worker-plan-back');
    const healedAt = Date.now();
    while ((await subscriptions()).some((s) => s !== 'ACTIVE') && Date.now() < healedAt + 60_000) await sleep(200);
    const activatedMs = Date.now() - healedAt;
    while (Date.now() < healedAt + 60_000) {
      const progress = await npProgress();
      if (progress.committed === progress.end) break;
      await sleep(250);
    }
    await sleep(1000); // a late copy of an event would arrive now
    const final = {
      ports: await statuses(),
      subscriptions: await subscriptions(),
      // applications where they happen: the ledger's activation entries, the port's COMPLETED status changes
      activationsApplied: await Promise.all(ports.map((gpsi) => rig!.activationsApplied(gpsi))),
      completedChanges: ports.map(
        (gpsi) =>
          new Set(
            rig!
              .portEvents(gpsi)
              .filter((e) => e.value.portStatus === 'COMPLETED')
              .map((e) => e.headers.ce_id),
          ).size,
      ),
      progress: await npProgress(),
    };
    // records as sent: copies under the same id (at least once) counted apart
    const activationRecords = ports.map((gpsi) => rig!.activationRecords(gpsi));
    const completedRecords = ports.map((gpsi) => rig!.portEvents(gpsi).filter((e) => e.value.portStatus === 'COMPLETED').length);
    const sum = (values: number[]) => values.reduce((total, n) => total + n, 0);
    const active = final.subscriptions.filter((s) => s === 'ACTIVE').length;
    report(
      'NP activation refused, then possible',
      {
        sent: final.progress.end,
        replied: createReplies.filter((r) => r === 'Success').length,
        applied: sum(final.activationsApplied),
        duplicates: sum(final.activationsApplied.map((n) => Math.max(0, n - 1))),
        lost: final.activationsApplied.filter((n) => n === 0).length,
        copies: { events: sum(activationRecords) - sum(ports.map((gpsi) => rig!.activationIds(gpsi))) + sum(completedRecords) - sum(final.completedChanges) },
      },
      [
        `sent = NP responses on the topic, replied = CreatePortIn answered Success, applied = activations in the ledgers (per port ${final.activationsApplied.join(',')}; SubscriptionActivated records ${activationRecords.join(',')}), lost = ports without one`,
        `${PORTS} ports answered to a worker without plan ${PLAN}: ports ${whileRefused.ports.join('/')}, subscriptions ${whileRefused.subscriptions.join('/')}, ${whileRefused.activations} activations in the ledgers, ${whileRefused.activationEvents} activation events, NP responses committed ${whileRefused.progress.committed} of ${whileRefused.progress.end}, dead letters ${whileRefused.deadLetters}`,
        `with the plan back: ${active} of ${PORTS} ACTIVE ${(activatedMs / 1000).toFixed(1)} s after the worker started; committed ${final.progress.committed} of ${final.progress.end}`,
        seconds(began),
      ],
    );
    // while refused: the transition written, the activation not, the response held (not committed, not dead-lettered)
    expect(whileRefused.ports).toContain('COMPLETED');
    expect(whileRefused.subscriptions).toEqual(ports.map(() => 'PENDING'));
    expect(whileRefused.activations).toBe(0);
    expect(whileRefused.activationEvents).toBe(0);
    expect(whileRefused.deadLetters).toBe(0);
    expect(whileRefused.progress.committed).toBeLessThan(whileRefused.progress.end);
    // afterwards: COMPLETED + ACTIVE + exactly one activation applied (and one COMPLETED status change) per port
    expect(final).toEqual({
      ports: ports.map(() => 'COMPLETED'),
      subscriptions: ports.map(() => 'ACTIVE'),
      activationsApplied: ports.map(() => 1),
      completedChanges: ports.map(() => 1),
      progress: { committed: final.progress.end, end: final.progress.end },
    });
    expect(final.progress.end).toBe(3 * PORTS); // OrderIdAssigned, PortConfirmed, ActivationComplete each
    expect(activationRecords.every((n) => n >= 1)).toBe(true);
  });
});
