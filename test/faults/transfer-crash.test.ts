import { randomUUID } from 'node:crypto';
import { createBalanceComponents } from '../../src/app/balance';
import { loadCatalog } from '../../src/app/service';
import { createRedisClient } from '../../src/adapters/redis/client';
import { subscriberKeys } from '../../src/adapters/redis/keys';
import { HEADER } from '../../src/contract/headers';
import { balanceRecord } from '../support/balance-client';
import { createTopics, TestRequester } from '../support/harness';
import { createActiveSubscription } from '../support/subscriptions';
import { WorkerProcess } from '../support/worker-process';
import { balanceInvariantViolations } from './support/balance-invariant';
import { crashedByHook, CRASH_HOOK } from './support/crash-hook';
import { FAULT_CUSTOMER, faultConfig, faultPartnerTopics, partnerToken, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { readCommitted } from './support/second-reader';
import { groupProgress } from './support/topics';

jest.setTimeout(120_000); // jest ignores testTimeout in a project's configuration

/**
 * A worker SIGKILLed inside TransferBalance, right before each of its three Redis steps: before the debit
 * (the transfer only noted for the sweeper), before the credit (the source debited, the transfer pending),
 * before the settlement (the target credited too), and before the settlement of a transfer the target
 * refused (to its voice sub-balance: the reversal not made yet). The preload support/crash-before-script.cjs
 * kills the process as it is about to run the step's script for the number named; a second worker gets the
 * command again from Kafka (nothing was committed) and finishes it. Each kill has its own topics, group and
 * key prefix on the suite's one stack, so the four run side by side. Afterwards, all or nothing: the amount
 * left the source once and reached the target once (balances and both ledgers), the transfer is completed,
 * a read_committed reader finds one reply and one BalanceTransferred — or, refused, the amount left the
 * source once and came back once, the transfer reversed, one CONFLICT reply and one TransferReversed — and
 * the balance invariant holds.
 */
const CRASH_WAIT_MS = 60_000;
const AMOUNT = 25;
const START = 5_120_000; // WP-BASIC's On-Net Data, milli-units

/** `refused`: to the target's voice sub-balance, which refuses the credit: the transfer is reversed. */
const KILL_POINTS: readonly { before: string; on: 'source' | 'target'; after: string; refused?: true }[] = [
  { before: 'transferDebit', on: 'source', after: 'the transfer noted, nothing taken' },
  { before: 'transferCredit', on: 'target', after: 'the source debited, the transfer pending' },
  { before: 'transferSettle', on: 'source', after: 'the target credited, the transfer pending' },
  { before: 'transferSettle', on: 'source', after: 'the target refused, the transfer pending', refused: true },
];

interface Footprint {
  /** Reply records of the command's correlation id, read read_committed. */
  replies: number;
  replyStatus: unknown;
  /** BalanceTransferred (TransferReversed when refused) records of the command, read read_committed. */
  events: number;
  /** Records of the other of the two events. */
  otherEvents: number;
  fromRemaining: number;
  toRemaining: number;
  fromLedger: unknown[];
  toLedger: unknown[];
  /** The source's record of the transfer: its format and state. */
  transfer: string;
  invariantViolations: string[];
}

async function killAndTakeOver({ before, on, refused }: (typeof KILL_POINTS)[number]): Promise<{ footprint: Footprint; crashedExit: number | null }> {
  const config = await faultConfig();
  await createTopics(config);
  const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
  const catalog = loadCatalog(config.catalogFile);
  const balance = createBalanceComponents({ config, catalog, redis });
  const workers: WorkerProcess[] = [];
  const requester = await TestRequester.start(config, [faultPartnerTopics(config).balanceReplies], { tokenProvider: partnerToken });
  try {
    const from = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: FAULT_CUSTOMER });
    const to = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: FAULT_CUSTOMER });
    const dataOf = (gpsi: string) => `${gpsi}-4`;
    const crashing = await WorkerProcess.start({ ...workerEnv(config), CRASH_BEFORE_SCRIPT: before, CRASH_MATCH: on === 'source' ? from.gpsi : to.gpsi }, `crash-before-${before}`, undefined, [
      CRASH_HOOK,
    ]);
    workers.push(crashing);
    const correlationId = randomUUID();
    const replied = requester.awaitReply(correlationId, 90_000);
    const command = { gpsi: from.gpsi, subBalanceInstId: dataOf(from.gpsi), toGpsi: to.gpsi, toSubBalanceInstId: refused ? `${to.gpsi}-1` : dataOf(to.gpsi), amount: AMOUNT };
    await requester.dispatch('balanceCommands', balanceRecord('TransferBalance'), command, { correlationId, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
    const crashedExit = await crashedByHook(crashing, before, CRASH_WAIT_MS);
    workers.push(await WorkerProcess.start(workerEnv(config), `after-crash-before-${before}`));
    const reply = (await replied).value as { status?: unknown };
    for (let end = Date.now() + 30_000; ;) {
      const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.balanceCommands);
      if (progress.committed === progress.end) break;
      if (Date.now() > end) throw new Error(`TransferBalance not committed: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const repliesTopic = faultPartnerTopics(config).balanceReplies;
    const committed = await readCommitted(config.kafka.brokers, [repliesTopic, config.topics.balanceEvents]);
    const remainingOf = async (gpsi: string) => (await balance.balances.queryBalances(gpsi, [FAULT_CUSTOMER])).balances.find((b) => b.subBalanceInstId === dataOf(gpsi))!.remaining;
    const ledgerOf = async (gpsi: string) =>
      (await balance.balances.history(gpsi, [FAULT_CUSTOMER], 50)).filter((e) => e.operation.startsWith('Transfer')).map((e) => [e.operation, e.change, e.quantity]);
    const eventsOf = (type: string) =>
      committed.get(config.topics.balanceEvents)!.filter((r) => r.headers.get('ce_type') === balanceRecord(type) && r.headers.get('ce_correlationid') === correlationId).length;
    const [expectedType, otherType] = refused ? ['TransferReversed', 'BalanceTransferred'] : ['BalanceTransferred', 'TransferReversed'];
    const footprint: Footprint = {
      replies: committed.get(repliesTopic)!.filter((r) => r.headers.get(HEADER.correlationId) === correlationId).length,
      replyStatus: reply.status,
      events: eventsOf(expectedType),
      otherEvents: eventsOf(otherType),
      fromRemaining: await remainingOf(from.gpsi),
      toRemaining: await remainingOf(to.gpsi),
      fromLedger: await ledgerOf(from.gpsi),
      toLedger: await ledgerOf(to.gpsi),
      transfer: Object.values(await redis.hgetall(subscriberKeys(config.redis.keyPrefix, from.gpsi).transfers))
        .map((record) => record.split('|').slice(0, 2).join('|'))
        .join(', '),
      invariantViolations: await balanceInvariantViolations({ redis, balance, catalog, keyPrefix: config.redis.keyPrefix, ledgerRetention: config.balance.ledgerRetention }, [from, to]),
    };
    return { footprint, crashedExit };
  } finally {
    await Promise.all(workers.map((w) => w.signal('SIGKILL')));
    await requester.stop();
    redis.disconnect();
  }
}

describe('the worker killed inside TransferBalance, right before each of its Redis steps', () => {
  it('a second worker finishes the redelivered transfer: all or nothing, one reply, one event (BalanceTransferred, or TransferReversed when refused), the invariant kept', async () => {
    const began = Date.now();
    const runs = await Promise.all(KILL_POINTS.map(async (point) => ({ ...point, ...(await killAndTakeOver(point)) })));
    const expectedOf = ({ refused }: (typeof KILL_POINTS)[number]): Footprint =>
      refused
        ? {
            // the amount given back once: CONFLICT, and one TransferReversed
            replies: 1,
            replyStatus: 'CONFLICT',
            events: 1,
            otherEvents: 0,
            fromRemaining: START,
            toRemaining: START,
            fromLedger: [
              ['TransferReversal', 'Add', AMOUNT * 1000],
              ['TransferBalance', 'Subtract', AMOUNT * 1000],
            ],
            toLedger: [],
            transfer: '1|reversed',
            invariantViolations: [],
          }
        : {
            replies: 1,
            replyStatus: 'Success',
            events: 1,
            otherEvents: 0,
            fromRemaining: START - AMOUNT * 1000,
            toRemaining: START + AMOUNT * 1000,
            fromLedger: [['TransferBalance', 'Subtract', AMOUNT * 1000]],
            toLedger: [['TransferBalance', 'Add', AMOUNT * 1000]],
            transfer: '1|completed',
            invariantViolations: [],
          };
    const sum = (of: (f: Footprint) => number) => runs.reduce((n, r) => n + of(r.footprint), 0);
    // effects counted in the two ledgers: each expected entry once
    const entries = (f: Footprint) => f.fromLedger.length + f.toLedger.length;
    const moved = (r: (typeof runs)[number]) => r.footprint.fromRemaining === expectedOf(r).fromRemaining && r.footprint.toRemaining === expectedOf(r).toRemaining;
    report(
      'TransferBalance, worker killed before each Redis step',
      {
        sent: runs.length,
        replied: runs.filter((r) => r.footprint.replies > 0).length,
        applied: runs.filter((r) => moved(r) && entries(r.footprint) === entries(expectedOf(r))).length,
        duplicates: runs.filter((r) => entries(r.footprint) > entries(expectedOf(r))).length,
        lost: runs.filter((r) => entries(r.footprint) < entries(expectedOf(r))).length,
        copies: { replies: sum((f) => Math.max(0, f.replies - 1)), events: sum((f) => Math.max(0, f.events - 1)) },
      },
      [
        'sent = transfers (the last to a sub-balance that refuses it: reversed), replied = with a reply, applied = moved (or given back) exactly once, duplicates = a ledger entry more than once, lost = a ledger entry missing; read read_committed',
        ...runs.map((r) => `killed before ${r.before} (${r.after}), exit ${r.crashedExit} → ${JSON.stringify(r.footprint)}`),
        seconds(began),
      ],
    );
    expect(runs.map((r) => ({ before: r.before, exit: r.crashedExit, footprint: r.footprint }))).toEqual(KILL_POINTS.map((p) => ({ before: p.before, exit: null, footprint: expectedOf(p) })));
  });
});
