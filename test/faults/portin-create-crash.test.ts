import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ServiceConfig } from '../../src/app/config';
import { createRedisClient } from '../../src/adapters/redis/client';
import { portInKeys, transactionKey } from '../../src/adapters/redis/portin-keys';
import { HEADER } from '../../src/contract/headers';
import { createTopics } from '../support/harness';
import { gpsiEndingIn } from '../support/portin/journey';
import { FAULT_CUSTOMER, faultConfig, faultPartnerTopics } from './support/fault-config';
import { NpRig } from './support/np-rig';
import { report, seconds } from './support/report';
import { drainTopic, groupProgress, headerString } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14: the worker dies inside CreatePortIn, between two of its Redis steps. A test-only preload
 * (support/crash-before-script.cjs) SIGKILLs the worker process the moment it is about to run one script
 * for the command's number or transaction: before the request is written (the partner transaction
 * claimed), before the pending subscription is created (the request written), before the transaction is
 * settled (the subscription created). A second worker gets the command again from Kafka (nothing was
 * committed) and must finish it: one reply, Success, one request, one PENDING subscription, one OPEN event
 * id, one NP request, the transaction settled with that reply. Each crash point has its own topics and
 * group, so the three run side by side.
 */
const HOOK = join(__dirname, 'support', 'crash-before-script.cjs');
const REPLY_WAIT_MS = 90_000;
const CRASH_WAIT_MS = 60_000;

const CRASH_POINTS = [
  { before: 'portinWrite', after: 'the partner transaction claimed' },
  { before: 'subscriptionCreate', after: 'the request written' },
  { before: 'portinSettleTransaction', after: 'the pending subscription created' },
] as const;

interface Footprint {
  replies: number;
  replyStatus: unknown;
  portStatus: string;
  otherRequests: number;
  subscription: string | undefined;
  openEventIds: number;
  /** Distinct NP request records (a request written twice would differ in its request id). */
  npRequests: number;
  transaction: string;
}

async function crashAndRedeliver(before: string): Promise<{ footprint: Footprint; crashedExit: number | null; handledBySecond: number; config: ServiceConfig; rig: NpRig }> {
  const config = await faultConfig();
  await createTopics(config);
  const rig = await NpRig.start(config);
  const gpsi = gpsiEndingIn('21');
  const partnerTransactionId = `PTX-${randomUUID().slice(0, 12)}`;
  const match = before === 'portinSettleTransaction' ? partnerTransactionId : gpsi;
  const crashing = await rig.startWorker(`crash-before-${before}`, { CRASH_BEFORE_SCRIPT: before, CRASH_MATCH: match }, [HOOK]);
  const replied = rig.createPortIn(gpsi, { partnerTransactionId }, REPLY_WAIT_MS);
  // The hook names its step; should it never fire (a renamed step, another call), fail now, not at the suite's timeout.
  let noCrash: NodeJS.Timeout | undefined;
  const crashedExit = await Promise.race([
    crashing.exited,
    new Promise<never>((_, reject) => {
      noCrash = setTimeout(() => reject(new Error(`the crash hook did not fire before ${before} within ${CRASH_WAIT_MS} ms:\n${crashing.tail(20)}`)), CRASH_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(noCrash));
  if (!crashing.output().includes('crash hook: SIGKILL')) throw new Error(`worker exited (${crashedExit}) without the crash hook:\n${crashing.tail(20)}`);
  const second = await rig.startWorker(`after-crash-before-${before}`);
  const { correlationId, reply } = await replied;
  // everything the command will ever do is done once its offset is committed
  for (let end = Date.now() + 30_000; ; ) {
    const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.portinCommands);
    if (progress.committed === progress.end) break;
    if (Date.now() > end) throw new Error(`CreatePortIn not committed: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const replies = (await drainTopic(config.kafka.brokers, faultPartnerTopics(config).portinReplies)).filter((r) => headerString(r, HEADER.correlationId) === correlationId);
  const npRequests = (await drainTopic(config.kafka.brokers, config.topics.npRequests)).filter((r) => r.key?.toString() === gpsi);
  const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
  try {
    const keys = portInKeys(config.redis.keyPrefix, gpsi);
    const transaction = await redis.hmget(transactionKey(config.redis.keyPrefix, FAULT_CUSTOMER, partnerTransactionId), 'state', 'reply');
    const footprint: Footprint = {
      replies: replies.length,
      replyStatus: reply.status,
      portStatus: (await redis.hget(keys.current, 'portStatus')) ?? '',
      otherRequests: await redis.hlen(keys.history),
      subscription: await rig.subscriptionStatus(gpsi),
      openEventIds: new Set(rig.portEvents(gpsi).filter((e) => e.value.portStatus === 'OPEN').map((e) => e.headers.ce_id)).size,
      npRequests: new Set(npRequests.map((r) => r.value?.toString('hex'))).size,
      transaction: `${transaction[0]}${transaction[1] === JSON.stringify(reply) ? ' with the reply sent' : ` with another reply: ${transaction[1]}`}`,
    };
    const handledBySecond = second.handled.filter((h) => h.correlationId === correlationId).length;
    return { footprint, crashedExit, handledBySecond, config, rig };
  } finally {
    redis.disconnect();
  }
}

describe('the worker killed inside CreatePortIn, between its Redis steps', () => {
  const rigs: NpRig[] = [];

  afterAll(async () => {
    await Promise.all(rigs.map((rig) => rig.stop()));
  });

  it('a second worker finishes the redelivered command: one reply, one request, one subscription, one event of each', async () => {
    const began = Date.now();
    const runs = await Promise.all(CRASH_POINTS.map(async (point) => {
      const run = await crashAndRedeliver(point.before);
      rigs.push(run.rig);
      return { ...point, ...run };
    }));
    const expected: Footprint = {
      replies: 1,
      replyStatus: 'Success',
      portStatus: 'OPEN',
      otherRequests: 0,
      subscription: 'PENDING',
      openEventIds: 1,
      npRequests: 1,
      transaction: 'settled with the reply sent',
    };
    const wrong = runs.filter((r) => JSON.stringify(r.footprint) !== JSON.stringify(expected));
    report('CreatePortIn, worker killed between its Redis steps', { sent: runs.length, replied: runs.reduce((n, r) => n + r.footprint.replies, 0), applied: runs.filter((r) => r.footprint.subscription === 'PENDING').length, duplicates: runs.reduce((n, r) => n + Math.max(0, r.footprint.openEventIds - 1) + Math.max(0, r.footprint.npRequests - 1), 0), lost: wrong.length }, [
      ...runs.map((r) => `killed before ${r.before} (${r.after}), exit ${r.crashedExit}: the second worker handled it ${r.handledBySecond} time(s) → ${JSON.stringify(r.footprint)}`),
      seconds(began),
    ]);
    expect(runs.map((r) => ({ before: r.before, exit: r.crashedExit, footprint: r.footprint, handledBySecond: r.handledBySecond }))).toEqual(
      CRASH_POINTS.map((p) => ({ before: p.before, exit: null, footprint: expected, handledBySecond: 1 })),
    );
  });
});
