import { createTopics } from '../support/harness';
import { gpsiEndingIn } from '../support/portin/journey';
import { faultConfig } from './support/fault-config';
import { catalogWithout, NpRig } from './support/np-rig';
import { report, seconds } from './support/report';
import { drainTopic, groupProgress } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14: a held record holds its own partition, not the others. One port's ActivationComplete is held
 * (its plan left the worker's catalog: the port is written COMPLETED, the activation refused, the response
 * retried). Meanwhile new ports are created and answered by the NP simulator: those whose NP responses land
 * on other partitions must be answered and completed (COMPLETED + ACTIVE); the one whose responses land on
 * the held partition must wait behind the held record (order within a partition), and complete once a
 * worker with the plan back has done the held one.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HELD_PLAN = 'WP-BASIC';
const OTHER_PLAN = 'WP-UNL';
const OTHERS = 3;

/** A number ending in 21 (the simulator confirms and completes it) whose NP responses go to a partition the test accepts. */
function numberOn(rig: NpRig, accept: (partition: number) => boolean): string {
  for (;;) {
    const gpsi = gpsiEndingIn('21');
    if (accept(rig.npPartitionOf(gpsi))) return gpsi;
  }
}

async function waitUntil(what: string, test: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const began = Date.now();
  while (!(await test())) {
    if (Date.now() - began > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
  return Date.now() - began;
}

describe('one NP response held (its activation refused) while other ports come and go', () => {
  let rig: NpRig | undefined;

  afterAll(async () => {
    await rig?.stop();
  });

  it('holds only its partition: the ports on other partitions are answered and completed meanwhile', async () => {
    const began = Date.now();
    const config = await faultConfig();
    await createTopics(config);
    const withoutPlan = catalogWithout(config, HELD_PLAN);
    rig = await NpRig.start(config);
    const held = numberOn(rig, () => true);
    const heldPartition = rig.npPartitionOf(held);
    const others = Array.from({ length: OTHERS }, () => numberOn(rig!, (p) => p !== heldPartition));
    const behind = numberOn(rig, (p) => p === heldPartition);
    const state = async (gpsi: string) => `${await rig!.portStatus(gpsi)}/${await rig!.subscriptionStatus(gpsi)}`;

    // the held port is created by a worker with the full catalog; the NP side does not answer yet
    const full = await rig.startWorker('worker-full-catalog');
    const heldReply = await rig.createPortIns([held], { wholesalePlanId: HELD_PLAN });
    expect(heldReply).toEqual(['Success']);
    await full.signal('SIGTERM');

    // a worker whose catalog lost the plan handles the NP responses: the held port's completion is written,
    // its activation refused, its response held
    const refusing = await rig.startWorker('worker-without-plan', { CATALOG_FILE: withoutPlan });
    // the hold as the worker logs it: which record of which partition, and when (read by the test)
    const holds: { partition: number; offset: string; at: number }[] = [];
    const released = refusing.countLines((line) => line.includes('held record done') && line.includes(config.topics.npResponses));
    refusing.countLines((line) => {
      if (!line.includes('holding the partition')) return false;
      let parsed: { topic?: string; partition: number; offset: string };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        return false; // a line cut by the signal
      }
      if (parsed.topic === config.topics.npResponses) holds.push({ partition: parsed.partition, offset: parsed.offset, at: Date.now() });
      return true;
    });
    await rig.startSimulator();
    await waitUntil('the held port written COMPLETED', async () => (await rig!.portStatus(held)) === 'COMPLETED', 60_000);
    await sleep(1000); // its response is retried now

    // new ports while it is held: on other partitions, and one behind it on its partition
    const createdAt = Date.now();
    const replies = await rig.createPortIns([...others, behind], { wholesalePlanId: OTHER_PLAN }).catch((error: Error) => [error.message]);
    const repliedMs = Date.now() - createdAt;
    const behindAfterCreate = await state(behind);
    const othersDone = async () => (await Promise.all(others.map(state))).every((s) => s === 'COMPLETED/ACTIVE');
    const completedMs = await waitUntil("the other partitions' ports completed", othersDone, 20_000).catch(() => undefined);
    await sleep(2000); // the port behind the held record would move now if the hold let it pass
    const whileHeld = {
      replies,
      others: await Promise.all(others.map(state)),
      held: await state(held),
      behind: await state(behind),
      deadLetters: refusing.outcomes().DEAD_LETTER ?? 0,
    };
    const holdEndedAt = Date.now(); // the hold lasts until the worker stops (no "held record done" line)
    await refusing.signal('SIGTERM');
    // where the NP responses were: the held one and those of the port behind it on the held partition, after
    // it, written while the worker still held it; the other ports' on other partitions, handled meanwhile
    const responses = await drainTopic(config.kafka.brokers, config.topics.npResponses);
    const recordsOf = (gpsi: string) => responses.filter((r) => r.key?.toString() === gpsi);
    const heldRecord = responses.find((r) => r.partition === holds[0]?.partition && r.offset === holds[0]?.offset);
    const hold = {
      partitions: [...new Set(holds.map((h) => h.partition))],
      offsets: [...new Set(holds.map((h) => h.offset))].length,
      recordOf: heldRecord?.key?.toString() === held ? 'the held port' : `another record (${heldRecord?.key?.toString()})`,
      released: released.count,
    };
    const holdBeganAt = holds[0]?.at ?? Date.now();
    const behindRecords = recordsOf(behind);
    const behindOnHeld = behindRecords.filter(
      (r) => r.partition === heldPartition && BigInt(r.offset) > BigInt(holds[0]?.offset ?? '0') && Number(r.timestamp) > holdBeganAt && Number(r.timestamp) < holdEndedAt,
    ).length;
    const refusingHandled = new Set(refusing.handled.map((h) => `${h.partition}/${h.offset}`));
    const othersRecords = others.flatMap(recordsOf);
    const othersHandledWhileHeld = othersRecords.filter((r) => r.partition !== heldPartition && refusingHandled.has(`${r.partition}/${r.offset}`)).length;

    // the plan is back: the held response is done, then the one behind it
    await rig.startWorker('worker-plan-back');
    const all = [held, ...others, behind];
    const healedMs = await waitUntil('every port completed', async () => (await Promise.all(all.map(state))).every((s) => s === 'COMPLETED/ACTIVE'), 60_000);
    await waitUntil(
      'every NP response committed',
      async () => {
        const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
        return progress.committed === progress.end;
      },
      30_000,
    );
    await sleep(1000); // a late copy of an event would arrive now
    // applications where they happen: the ledger's activation entries; the events' records apart (copies)
    const activationsApplied = await Promise.all(all.map((gpsi) => rig!.activationsApplied(gpsi)));
    const activationRecords = all.map((gpsi) => rig!.activationRecords(gpsi));
    const eventCopies = all.reduce(
      (sum, gpsi) => sum + rig!.portEvents(gpsi).length - new Set(rig!.portEvents(gpsi).map((e) => e.headers.ce_id)).size + rig!.activationRecords(gpsi) - rig!.activationIds(gpsi),
      0,
    );
    const npResponsesSent = (await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses)).end;

    report(
      'NP response held on one partition',
      {
        sent: npResponsesSent,
        replied: [...heldReply, ...replies].filter((r) => r === 'Success').length,
        applied: activationsApplied.reduce((sum, n) => sum + n, 0),
        duplicates: activationsApplied.reduce((sum, n) => sum + Math.max(0, n - 1), 0),
        lost: activationsApplied.filter((n) => n === 0).length,
        copies: { events: eventCopies },
      },
      [
        `sent = NP responses on the topic, replied = CreatePortIn answered Success, applied = activations in the ledgers, lost = ports without one`,
        `held port on NP partition ${heldPartition} (its plan ${HELD_PLAN} left the catalog): ${whileHeld.held} while held; the worker held partition(s) ${hold.partitions.join(',')} of the NP responses, ${hold.offsets} record(s) (${hold.recordOf}), ${holds.length} tries over ${((holdEndedAt - holdBeganAt) / 1000).toFixed(1)} s until it stopped, released ${hold.released} time(s)`,
        `the port behind it: ${behindOnHeld} of its ${behindRecords.length} NP responses on partition ${heldPartition} after the held record, written during the hold; the other ports' ${othersHandledWhileHeld} of ${othersRecords.length} on other partitions handled during it`,
        `${OTHERS} ports created while it was held: replies ${JSON.stringify(replies)} in ${(repliedMs / 1000).toFixed(1)} s, on other partitions ${completedMs === undefined ? 'not completed within 20 s' : `COMPLETED + ACTIVE ${(completedMs / 1000).toFixed(1)} s after their replies`} (${whileHeld.others.join(', ')})`,
        `the port behind the held record on its partition: ${whileHeld.behind} while held (${behindAfterCreate} after its creation), dead letters ${whileHeld.deadLetters}`,
        `with the plan back every port COMPLETED + ACTIVE ${(healedMs / 1000).toFixed(1)} s after the worker started; activations applied per port ${activationsApplied.join(',')} (SubscriptionActivated records ${activationRecords.join(',')})`,
        seconds(began),
      ],
    );
    expect(whileHeld).toEqual({
      replies: [...others, behind].map(() => 'Success'),
      others: others.map(() => 'COMPLETED/ACTIVE'),
      held: 'COMPLETED/PENDING',
      behind: behindAfterCreate, // its responses wait behind the held one: nothing of them applied
      deadLetters: 0,
    });
    expect(behindAfterCreate).not.toMatch(/^(CONFIRMED|COMPLETED)/);
    // the hold was the held port's record on its partition, from before the ports were created until the
    // worker stopped
    expect(hold).toEqual({ partitions: [heldPartition], offsets: 1, recordOf: 'the held port', released: 0 });
    expect(holdBeganAt).toBeLessThan(createdAt);
    // the port behind it had NP responses waiting on the held partition during the hold (the simulator
    // answers OrderIdAssigned at least), and the other ports' responses were handled meanwhile
    expect(behindOnHeld).toBeGreaterThan(0);
    expect(othersHandledWhileHeld).toBe(othersRecords.length);
    expect(othersRecords.length).toBeGreaterThan(0);
    expect(activationsApplied).toEqual(all.map(() => 1));
  });
});
