import type { Producer } from 'kafkajs';
import { HEADER } from '../../src/contract/headers';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad } from './support/balance-load';
import { faultConfig, faultPartnerTopics, partnerHeaders, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { groupProgress, headerString, kafkaClient, TEST_SESSION } from './support/topics';

jest.setTimeout(420_000); // jest ignores testTimeout in a project's configuration

/**
 * A worker restart as a partner lives it (issue 40): the rate limiter at its defaults (100/s, burst 200), a
 * partner sending 2,500 UpdateBalances "Add 1" at a steady 95/s — never above its limit — while the service
 * process is SIGKILLed three times and started again 1, 2 and 6 s later (each kill once the previous
 * restart answered, so every restart leaves a backlog of its own; the last down longer than the reply timeout,
 * so commands are re-sent whatever the machine's speed). Like any requester with a reply timeout,
 * the partner sends a command again with the same X-Correlation-Id when no reply came within 5 s (three
 * times at most, as a client's retry budget would). Every
 * reply record on the partner's reply topic is kept, so a correlation id answered two ways shows.
 * The worker is a static group member (KAFKA_GROUP_INSTANCE_ID, the same id across its restarts) with the
 * default 30 s session: a restarted worker takes its partitions back at once, where a new member would wait
 * for the dead one's session to end.
 */
const COMMANDS = 2500;
const RATE_PER_SECOND = 95;
const REPLY_TIMEOUT_MS = 5000;
const MAX_RESENDS = 3;
const KILLS = [
  { atSent: 300, downMs: 1000 },
  { atSent: 700, downMs: 2000 },
  { atSent: 1100, downMs: 6000 },
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: string;
  at: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

describe('a worker restart is invisible to a partner that keeps to its rate', () => {
  it('three SIGKILLs and restarts: no RATE_LIMITED, no correlation id answered two ways, every balance exact', async () => {
    const began = Date.now();
    const config = await faultConfig({ RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '200', KAFKA_SESSION_TIMEOUT_MS: '30000', KAFKA_GROUP_INSTANCE_ID: 'partner-restart-worker' });
    expect(config.rateLimit).toEqual({ perSecond: 100, burst: 200, backlogSeconds: 120 }); // the defaults
    expect(config.kafka.sessionTimeoutMs).toBe(30_000); // the default
    await createTopics(config);
    const load = await BalanceLoad.prepare(config, { subscriptions: 50, commands: COMMANDS, producers: 1, ratePerSecond: RATE_PER_SECOND });
    const planned = load.planned;
    const firstSent = new Map<string, number>();
    const answers = new Map<string, Answer[]>();
    let sends = 0;
    let resends = 0;

    // The partner's reply reader: every reply record, in arrival order.
    const replies = kafkaClient(config.kafka.brokers, 'partner-replies').consumer({ maxWaitTimeInMs: 500, groupId: `partner-${Date.now()}`, allowAutoTopicCreation: false, ...TEST_SESSION });
    await replies.connect();
    await replies.subscribe({ topics: [faultPartnerTopics(config).balanceReplies], fromBeginning: true });
    const joined = new Promise<void>((resolve) => replies.on(replies.events.GROUP_JOIN, () => resolve()));
    await replies.run({
      eachMessage: async ({ message }) => {
        const id = headerString(message, HEADER.correlationId);
        if (!id) return;
        answers.set(id, [...(answers.get(id) ?? []), { status: headerString(message, HEADER.status) ?? '?', at: Date.now() }]);
      },
    });
    await joined;

    const producer: Producer = kafkaClient(config.kafka.brokers, 'partner').producer({ allowAutoTopicCreation: false, retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 } });
    await producer.connect();
    const send = async (batch: typeof planned) => {
      const messages = await Promise.all(batch.map(async (c) => ({ key: c.gpsi, value: await load.encodeCommand(c.value), headers: await partnerHeaders(c.correlationId, c.customer) })));
      await producer.send({ topic: config.topics.balanceCommands, messages });
      sends += batch.length;
    };

    const workers: WorkerProcess[] = [await WorkerProcess.start(workerEnv(config), 'worker-1')];
    const restarts: { killedAt: number; firstAnswerMs?: number }[] = [];
    try {
      // Steady: 5 commands every 1000 × 5 / 95 ms; re-sends of the unanswered ride along, as a client's retries do.
      let next = 0;
      let killIndex = 0;
      const tick = (1000 * 5) / RATE_PER_SECOND;
      const start = Date.now();
      const lastSent = new Map<string, number>();
      const resent = new Map<string, number>();
      const resendDue = () => {
        const now = Date.now();
        return planned.filter(
          (c) => firstSent.has(c.correlationId) && !answers.has(c.correlationId) && (resent.get(c.correlationId) ?? 0) < MAX_RESENDS && now - lastSent.get(c.correlationId)! >= REPLY_TIMEOUT_MS,
        );
      };
      let killing: Promise<void> = Promise.resolve();
      for (let round = 0; next < planned.length || killIndex < KILLS.length || answers.size < planned.length; round++) {
        const due = start + round * tick;
        if (due > Date.now()) await sleep(due - Date.now());
        const fresh = planned.slice(next, next + 5);
        next += fresh.length;
        const again = resendDue();
        resends += again.length;
        const now = Date.now();
        for (const c of fresh) firstSent.set(c.correlationId, now);
        for (const c of [...fresh, ...again]) lastSent.set(c.correlationId, now);
        for (const c of again) resent.set(c.correlationId, (resent.get(c.correlationId) ?? 0) + 1);
        if (fresh.length + again.length > 0) await send([...fresh, ...again]);
        const kill = KILLS[killIndex];
        const previousAnswered = restarts.length === killIndex && restarts.at(-1)?.firstAnswerMs !== undefined;
        if (kill && next >= kill.atSent && (killIndex === 0 || previousAnswered)) {
          killIndex++;
          await killing;
          killing = (async () => {
            const worker = workers.at(-1)!;
            await worker.signal('SIGKILL');
            const killedAt = Date.now();
            await sleep(kill.downMs);
            const restarted = await WorkerProcess.start(workerEnv(config), `worker-${workers.length + 1}`);
            workers.push(restarted);
            const restart: (typeof restarts)[number] = { killedAt };
            restarts.push(restart);
            // from the kill: the dead member's session starts then, so a new member could not answer within it
            void restarted.handledMoreThan(0, 120_000).then(
              () => (restart.firstAnswerMs = restarted.handled[0].at - restart.killedAt),
              () => undefined,
            );
          })();
        }
        if (Date.now() - start > 300_000) throw new Error(`not all answered: ${answers.size} of ${planned.length}, ${killIndex} kills`);
      }
      await killing;
      for (const deadline = Date.now() + 120_000; ; await sleep(500)) {
        const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands);
        if (progress.end > 0 && progress.committed === progress.end) break; // every reply and event acknowledged
        if (Date.now() > deadline) throw new Error(`commands not all committed: ${JSON.stringify(progress)}`);
      }
      await sleep(1000); // a late second answer would arrive now

      const tally = await load.tally();
      const twoWays = [...answers].filter(([, list]) => new Set(list.map((a) => a.status)).size > 1);
      const statuses = new Map<string, number>();
      for (const list of answers.values()) for (const a of list) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      const toSuccess = planned
        .map((c) => (answers.get(c.correlationId) ?? []).find((a) => a.status === 'Success'))
        .map((a, i) => (a ? a.at - firstSent.get(planned[i].correlationId)! : Infinity))
        .sort((a, b) => a - b);
      const replyRecords = [...answers.values()].reduce((sum, list) => sum + list.length, 0);
      const answeredMoreThanOnce = [...answers.values()].filter((list) => list.length > 1).length;
      report('partner restart', tally, [
        `limiter ${config.rateLimit.perSecond}/s burst ${config.rateLimit.burst}`,
        `records sent ${sends} (${resends} re-sent after ${REPLY_TIMEOUT_MS / 1000} s without a reply)`,
        `reply records ${replyRecords}: ${[...statuses].map(([s, n]) => `${s} ${n}`).join(', ')}`,
        `correlation ids answered more than once ${answeredMoreThanOnce}, two ways ${twoWays.length}`,
        `send to Success p50 ${percentile(toSuccess, 50)} ms, p99 ${percentile(toSuccess, 99)} ms, max ${toSuccess.at(-1)} ms`,
        `kill to first answer ${restarts.map((r) => (r.firstAnswerMs === undefined ? '?' : `${(r.firstAnswerMs / 1000).toFixed(1)} s`)).join(', ')}`,
        `sub-balances off ${tally.balanceMismatches.length}, numbers out of order ${tally.orderViolations.length}`,
        seconds(began),
      ]);
      expect(restarts).toHaveLength(3);
      // the partner did re-send, and was answered again: an id answered two ways would show
      expect(resends).toBeGreaterThan(0);
      expect(answeredMoreThanOnce).toBeGreaterThan(0);
      expect(statuses.get('RATE_LIMITED') ?? 0).toBe(0);
      expect(twoWays.map(([id, list]) => `${id}: ${list.map((a) => a.status).join(' then ')}`)).toEqual([]);
      expect({ sent: tally.sent, replied: tally.replied, applied: tally.applied, duplicates: tally.duplicates, lost: tally.lost }).toEqual({
        sent: COMMANDS,
        replied: COMMANDS,
        applied: COMMANDS,
        duplicates: 0,
        lost: 0,
      });
      expect(tally.balanceMismatches).toEqual([]);
      expect(tally.orderViolations).toEqual([]);
      expect(tally.invariantViolations).toEqual([]);
      expect(toSuccess.at(-1)).toBeLessThan(Infinity); // every command got its Success
      // back at work before the dead member's session could have ended (from its last heartbeat, at most one
      // interval before the kill): the restarted member was not a new one, which waits for that end
      for (const restart of restarts) expect(restart.firstAnswerMs).toBeLessThan(config.kafka.sessionTimeoutMs - config.kafka.heartbeatIntervalMs);
    } finally {
      await Promise.all(workers.map((w) => w.signal('SIGKILL')));
      await producer.disconnect().catch(() => undefined);
      await replies.disconnect().catch(() => undefined);
      await load.stop();
    }
  });
});
