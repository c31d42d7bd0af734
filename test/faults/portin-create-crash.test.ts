import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../../src/app/config';
import { createRedisClient } from '../../src/adapters/redis/client';
import { portInKeys, transactionKey } from '../../src/adapters/redis/portin-keys';
import { HEADER } from '../../src/contract/headers';
import { createTopics } from '../support/harness';
import { addBusinessDays } from '../../src/domain/portin/due-date';
import { gpsiEndingIn } from '../support/portin/journey';
import { FAULT_CUSTOMER, faultConfig, faultPartnerTopics } from './support/fault-config';
import { crashedByHook, CRASH_HOOK } from './support/crash-hook';
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
 * record, one NP request record, the transaction settled with that reply. Each crash point has its own topics and
 * group, so the three run side by side. The last asks for the earliest due date and redelivers once that
 * date is too early: the recorded outcome is the answer (issue 46).
 */
const REPLY_WAIT_MS = 90_000;
const CRASH_WAIT_MS = 60_000;

/**
 * `earliestDueDate`: the command asks for the earliest due date allowed when it is sent, and the second
 * worker starts only once that date is too early (issue 46): the redelivery must replay the recorded
 * outcome, not judge the date again.
 */
const CRASH_POINTS: readonly { before: string; after: string; earliestDueDate?: true }[] = [
  { before: 'portinWrite', after: 'the partner transaction claimed' },
  { before: 'subscriptionCreate', after: 'the request written' },
  { before: 'portinSettleTransaction', after: 'the pending subscription created, with the earliest due date', earliestDueDate: true },
];
/** How long after it is sent the earliest due date stays allowed: time for the first worker to join and handle it. */
const DUE_DATE_MARGIN_MS = 15_000;

/**
 * What the command left, counted as records and applications, never as distinct ids or values: the
 * redelivered command derives the same request id, event id and NP request as the first try, so a second
 * copy or a second application would carry the same id and bytes.
 */
interface Footprint {
  /** CreatePortIn records of the command on the command topic (the partner sent it once). */
  commands: number;
  /** Reply records of its correlation id. */
  replies: number;
  replyStatus: unknown;
  /** The reply's due date: 'as asked' when it is the one asked for, else the reply's own (none asked: its default). */
  replyDueDate: unknown;
  portStatus: string;
  /** Entries of the number's history of requests: a request written again over the first moves it there. */
  otherRequests: number;
  subscription: string | undefined;
  /** PortInActivationEvent records of the number with status OPEN. */
  openEvents: number;
  /** NP request records of the number. */
  npRequests: number;
  transaction: string;
}

async function crashAndRedeliver({
  before,
  earliestDueDate,
}: (typeof CRASH_POINTS)[number]): Promise<{ footprint: Footprint; crashedExit: number | null; handledBySecond: number; config: ServiceConfig; rig: NpRig }> {
  const config = await faultConfig();
  await createTopics(config);
  const rig = await NpRig.start(config);
  const gpsi = gpsiEndingIn('21');
  const partnerTransactionId = `PTX-${randomUUID().slice(0, 12)}`;
  const match = before === 'portinSettleTransaction' ? partnerTransactionId : gpsi;
  const crashing = await rig.startWorker(`crash-before-${before}`, { CRASH_BEFORE_SCRIPT: before, CRASH_MATCH: match }, [CRASH_HOOK]);
  const desiredDueDate = earliestDueDate ? new Date(addBusinessDays(new Date(), 1).getTime() + DUE_DATE_MARGIN_MS).toISOString() : undefined;
  const replied = rig.createPortIn(gpsi, { partnerTransactionId, ...(desiredDueDate ? { desiredDueDate } : {}) }, REPLY_WAIT_MS);
  const crashedExit = await crashedByHook(crashing, before, CRASH_WAIT_MS);
  // the second worker handles the redelivery when the due date asked for is no longer allowed
  while (desiredDueDate && addBusinessDays(new Date(), 1).getTime() <= Date.parse(desiredDueDate) + 1000) await new Promise((resolve) => setTimeout(resolve, 250));
  const second = await rig.startWorker(`after-crash-before-${before}`);
  const { correlationId, reply } = await replied;
  // everything the command will ever do is done once its offset is committed
  for (let end = Date.now() + 30_000; ;) {
    const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.portinCommands);
    if (progress.committed === progress.end) break;
    if (Date.now() > end) throw new Error(`CreatePortIn not committed: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const replies = (await drainTopic(config.kafka.brokers, faultPartnerTopics(config).portinReplies)).filter((r) => headerString(r, HEADER.correlationId) === correlationId);
  const npRequests = (await drainTopic(config.kafka.brokers, config.topics.npRequests)).filter((r) => r.key?.toString() === gpsi);
  const commands = (await drainTopic(config.kafka.brokers, config.topics.portinCommands)).filter((r) => headerString(r, HEADER.correlationId) === correlationId);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // a late copy of an event would arrive now
  const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
  try {
    const keys = portInKeys(config.redis.keyPrefix, gpsi);
    const transaction = await redis.hmget(transactionKey(config.redis.keyPrefix, FAULT_CUSTOMER, partnerTransactionId), 'state', 'reply');
    const footprint: Footprint = {
      commands: commands.length,
      replies: replies.length,
      replyStatus: reply.status,
      replyDueDate: desiredDueDate === undefined || reply.desiredDueDate === desiredDueDate ? 'as asked' : reply.desiredDueDate,
      portStatus: (await redis.hget(keys.current, 'portStatus')) ?? '',
      otherRequests: await redis.hlen(keys.history),
      subscription: await rig.subscriptionStatus(gpsi),
      openEvents: rig.portEvents(gpsi).filter((e) => e.value.portStatus === 'OPEN').length,
      npRequests: npRequests.length,
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
    const runs = await Promise.all(
      CRASH_POINTS.map(async (point) => {
        const run = await crashAndRedeliver(point);
        rigs.push(run.rig);
        return { ...point, ...run };
      }),
    );
    const expected: Footprint = {
      commands: 1,
      replies: 1,
      replyStatus: 'Success',
      replyDueDate: 'as asked',
      portStatus: 'OPEN',
      otherRequests: 0,
      subscription: 'PENDING',
      openEvents: 1,
      npRequests: 1,
      transaction: 'settled with the reply sent',
    };
    const wrong = runs.filter((r) => JSON.stringify(r.footprint) !== JSON.stringify(expected));
    const sum = (of: (f: Footprint) => number) => runs.reduce((n, r) => n + of(r.footprint), 0);
    report(
      'CreatePortIn, worker killed between its Redis steps',
      {
        sent: sum((f) => f.commands),
        replied: runs.filter((r) => r.footprint.replies > 0).length,
        applied: runs.filter((r) => r.footprint.portStatus === 'OPEN' && r.footprint.subscription === 'PENDING').length,
        duplicates: sum((f) => f.otherRequests),
        lost: runs.filter((r) => r.footprint.portStatus === '' || r.footprint.subscription === undefined).length,
        copies: { replies: sum((f) => Math.max(0, f.replies - 1)), events: sum((f) => Math.max(0, f.openEvents - 1)), npRequests: sum((f) => Math.max(0, f.npRequests - 1)) },
      },
      [
        `sent = CreatePortIn records on the topics, replied = commands with a reply, applied = requests OPEN with a PENDING subscription, duplicates = requests written again (the number's history), lost = commands without a request or subscription; not as expected ${wrong.length}`,
        ...runs.map((r) => `killed before ${r.before} (${r.after}), exit ${r.crashedExit}: the second worker handled it ${r.handledBySecond} time(s) → ${JSON.stringify(r.footprint)}`),
        seconds(began),
      ],
    );
    expect(runs.map((r) => ({ before: r.before, exit: r.crashedExit, footprint: r.footprint, handledBySecond: r.handledBySecond }))).toEqual(
      CRASH_POINTS.map((p) => ({ before: p.before, exit: null, footprint: expected, handledBySecond: 1 })),
    );
  });
});
