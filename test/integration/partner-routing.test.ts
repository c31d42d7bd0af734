import { randomBytes, randomUUID } from 'node:crypto';
import type { BalanceComponents } from '../../src/app/balance';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { partnerTopics } from '../../src/contract/partner-topics';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { testConnection, TopicReader, type Reply } from '../support/harness';
import { parseSamples, sampleSum } from '../support/prometheus';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { openLetter } from '../support/dead-letters';
import { useService } from '../support/service-fixture';

/**
 * Issue 13 over the real stack (AUTH_MODE=jwt, partners alpha and beta of test/support/auth.ts): each
 * partner's replies and events on its own topics, a reply topic chosen only inside the caller's namespace
 * and only after authentication, and refused traffic that costs the sender's budget, not the service.
 * Written against the contract's naming rule alone, so the same file shows the defects on the code before.
 */
const PARTITIONS = 2;

describe('partners isolated on Kafka: replies, events and refused traffic', () => {
  const prefix = `t${randomUUID().slice(0, 8)}.partner.`;
  const alphaTopics = partnerTopics(prefix, 'alpha');
  const betaTopics = partnerTopics(prefix, 'beta');
  let auth: TestAuth;
  let balance: BalanceComponents;
  const seen: Reply[] = [];

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({
    env: () => ({ ...auth.env, PARTNER_TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: String(PARTITIONS), REJECTED_RATE_PER_SECOND: '1', REJECTED_BURST: '1' }),
    // The partner topics exist before the service starts (provisioned), as in production.
    prepare: (config) => ensureTopicsExist(testConnection(config), [...Object.values(alphaTopics), ...Object.values(betaTopics)], PARTITIONS, 1),
    // Replies are awaited on alpha's and beta's own topics only: a reply anywhere else is never seen.
    requester: () => [alphaTopics.balanceReplies, alphaTopics.portinReplies, betaTopics.balanceReplies, betaTopics.portinReplies],
  });

  beforeAll(async () => {
    // Everything written to any reply or event topic, partner or shared, and the DLQ.
    const everything = [
      ...Object.values(alphaTopics),
      ...Object.values(betaTopics),
      fx.config.topics.portinReplies,
      fx.config.topics.balanceReplies,
      fx.config.topics.balanceEvents,
      fx.config.topics.deadLetters,
    ];
    fx.track(await TopicReader.start(fx.config, everything, (record) => seen.push(record)));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  // One token per customer for the whole file, as a partner's client keeps its token for its lifetime: under a
  // flood claiming a partner only tokens verified before are checked (docs/security.md, "Refused traffic").
  const tokens = new Map<string, Promise<string>>();
  const token = (customer: string): Promise<string> => {
    if (!tokens.has(customer)) tokens.set(customer, auth.signer.sign(customer));
    return tokens.get(customer)!;
  };
  const subscriptionOf = (owner: string) => createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: owner, bucketRefIds: ['2000002'] });
  const updateOf = (sub: TestSubscription) => ({
    gpsi: sub.gpsi,
    balances: [{ subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 1, unitType: 'MB' }],
  });
  const send = async (operation: string, command: { gpsi: string }, bearer: string | null, headers: Record<string, string | Buffer> = {}) =>
    fx.requester.send('balanceCommands', balanceRecord(operation), command, { token: bearer, headers });
  /** Sends without waiting for a reply (there may be none); returns its correlation id. */
  const sendUnanswered = async (command: { gpsi: string }, headers: Record<string, string | Buffer>) => {
    const correlationId: string = randomUUID();
    const value = await fx.requester.encode('balanceCommands', balanceRecord('QueryBalances'), command);
    await fx.requester.sendRaw(fx.config.topics.balanceCommands, { key: command.gpsi, value, headers: { [HEADER.correlationId]: correlationId, ...headers } });
    return correlationId;
  };
  const onTopic = (topic: string) => seen.filter((r) => r.topic === topic);
  // A dead letter names its command's correlation id in clear in x-dlq-correlation-id (the original headers are sealed).
  const carrying = (correlationIds: string[]) =>
    seen.filter((r) => [r.headers[HEADER.correlationId], r.headers[DLQ_HEADER.correlationId], r.value?.correlationId].some((id) => id !== undefined && correlationIds.includes(id)));
  const eventually = async (what: string, probe: () => boolean, timeoutMs = 30000) => {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("answers each partner on its own reply topic and copies its events to its own event topic: nothing of alpha's on beta's topics", async () => {
    const alphaSub = await subscriptionOf('alpha-b1');
    const betaSub = await subscriptionOf('beta-b1');
    const alphaQuery = await send('QueryBalances', { gpsi: alphaSub.gpsi }, await token('alpha'), { [HEADER.wholesaleCustomerId]: 'alpha-b1' });
    const alphaUpdate = await send('UpdateBalances', updateOf(alphaSub), await token('alpha-b1'));
    const betaQuery = await send('QueryBalances', { gpsi: betaSub.gpsi }, await token('beta'));
    const betaUpdate = await send('UpdateBalances', updateOf(betaSub), await token('beta'));
    expect([alphaQuery, alphaUpdate].map((r) => [r.topic, r.headers[HEADER.status]])).toEqual([
      [alphaTopics.balanceReplies, 'Success'],
      [alphaTopics.balanceReplies, 'Success'],
    ]);
    expect([betaQuery, betaUpdate].map((r) => [r.topic, r.headers[HEADER.status]])).toEqual([
      [betaTopics.balanceReplies, 'Success'],
      [betaTopics.balanceReplies, 'Success'],
    ]);
    const alphaIds = [alphaQuery, alphaUpdate].map((r) => r.headers[HEADER.correlationId]);
    const betaIds = [betaQuery, betaUpdate].map((r) => r.headers[HEADER.correlationId]);
    // Each BalancesUpdated event on the operator's topic (billing, unchanged) and on its partner's, same ce_id.
    await eventually('both copies of both events', () => carrying([...alphaIds, ...betaIds]).filter((r) => r.recordName.endsWith('BalancesUpdated')).length === 4);
    const alphaEvents = carrying(alphaIds).filter((r) => r.recordName.endsWith('BalancesUpdated'));
    expect(alphaEvents.map((e) => e.topic).sort()).toEqual([alphaTopics.balanceEvents, fx.config.topics.balanceEvents].sort());
    expect(new Set(alphaEvents.map((e) => e.headers.ce_id)).size).toBe(1);
    const betaTopicNames = Object.values(betaTopics);
    expect(carrying(alphaIds).filter((r) => betaTopicNames.includes(r.topic))).toEqual([]);
    expect(seen.filter((r) => betaTopicNames.includes(r.topic) && (r.key === alphaSub.gpsi || r.value?.gpsi === alphaSub.gpsi))).toEqual([]);
    expect(carrying(betaIds).filter((r) => Object.values(alphaTopics).includes(r.topic))).toEqual([]);
    // The shared reply topics carry nobody's replies any more.
    expect([...onTopic(fx.config.topics.balanceReplies), ...onTopic(fx.config.topics.portinReplies)]).toEqual([]);
  });

  it("an unauthenticated command naming beta's reply topic writes nothing there (and is answered nowhere)", async () => {
    const betaSub = await subscriptionOf('beta');
    const forged = `${(await token('beta')).split('.').slice(0, 2).join('.')}.${randomBytes(64).toString('base64url')}`;
    const refused = [
      await sendUnanswered({ gpsi: betaSub.gpsi }, { [HEADER.replyTopic]: betaTopics.balanceReplies }),
      await sendUnanswered({ gpsi: betaSub.gpsi }, { kafka_replyTopic: betaTopics.balanceReplies, [HEADER.authorization]: `Bearer ${forged}` }),
    ];
    // The next command of the same number, on the same partition, is handled after them: their outcome is sent by then.
    const after = await send('QueryBalances', { gpsi: betaSub.gpsi }, await token('beta'));
    expect([after.topic, after.headers[HEADER.status]]).toEqual([betaTopics.balanceReplies, 'Success']);
    expect(onTopic(betaTopics.balanceReplies).filter((r) => refused.includes(r.headers[HEADER.correlationId]))).toEqual([]);
    expect(carrying(refused).filter((r) => r.topic !== fx.config.topics.deadLetters)).toEqual([]);
  });

  it('a flood of forged tokens is counted, not answered; a valid partner in the middle of it is served', async () => {
    const alphaSub = await subscriptionOf('alpha');
    const before = parseSamples(await fx.service.metrics.render());
    const rejected = (samples: ReturnType<typeof parseSamples>, action: string) => sampleSum(samples, 'wholesale_rejected_commands_total', { reason: 'UNAUTHORIZED', action });
    const claim = (await token('alpha')).split('.').slice(0, 2).join('.');
    // alpha's client is at work before the flood: its token is verified once and known from then on
    expect((await send('QueryBalances', { gpsi: alphaSub.gpsi }, await token('alpha'))).headers[HEADER.status]).toBe('Success');
    const started = Date.now();
    const flood: string[] = [];
    for (let i = 0; i < 200; i++) {
      flood.push(await sendUnanswered({ gpsi: alphaSub.gpsi }, { [HEADER.authorization]: `Bearer ${claim}.${randomBytes(64).toString('base64url')}` }));
    }
    const valid = await send('QueryBalances', { gpsi: alphaSub.gpsi }, await token('alpha'));
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect([valid.topic, valid.headers[HEADER.status]]).toEqual([alphaTopics.balanceReplies, 'Success']);
    const after = parseSamples(await fx.service.metrics.render());
    const recorded = rejected(after, 'recorded') - rejected(before, 'recorded');
    const dropped = rejected(after, 'dropped') - rejected(before, 'dropped');
    const shed = rejected(after, 'shed') - rejected(before, 'shed'); // not even verified: the budget was spent
    expect(recorded + dropped + shed).toBe(flood.length);
    expect(shed).toBeGreaterThan(0);
    // The budget (1/s, burst 1) bounds what is recorded whatever the flood's size.
    expect(recorded).toBeLessThanOrEqual(1 + Math.ceil(elapsedSeconds));
    await eventually('the recorded refusals on the DLQ', () => carrying(flood).length >= recorded);
    const records = carrying(flood);
    expect(records.length).toBe(recorded);
    for (const record of records) {
      expect([record.topic, record.headers['x-dlq-reason']]).toEqual([fx.config.topics.deadLetters, 'UNAUTHENTICATED']);
      expect(Object.keys(record.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
      // Sealed inside: the original headers without the token, and no value.
      const opened = openLetter(fx.config, record).original!;
      expect(opened.value).toBeNull();
      expect(opened.headers.map(([name]) => name.toLowerCase())).not.toContain('authorization');
    }
  });

  it('a reply topic that does not exist, an internal one, or a partition out of range → BAD_REQUEST on the default topic; the records behind it are handled', async () => {
    const alphaSub = await subscriptionOf('alpha');
    const bearer = await token('alpha');
    const partition7 = Buffer.alloc(4);
    partition7.writeInt32BE(7);
    const cases: [string, Record<string, string | Buffer>][] = [
      ['X-Reply-Topic', { [HEADER.replyTopic]: 'does.not.exist' }],
      ['X-Reply-Topic', { [HEADER.replyTopic]: `${prefix}alpha.does.not.exist` }],
      ['X-Reply-Topic', { kafka_replyTopic: '__consumer_offsets' }],
      ['X-Reply-Topic', { [HEADER.replyTopic]: betaTopics.balanceReplies }],
      ['kafka_replyPartition', { kafka_replyTopic: alphaTopics.balanceReplies, kafka_replyPartition: partition7 }],
    ];
    // Sent one after another on one key (one partition), the good one last, before any reply is awaited.
    const dispatch = async (headers: Record<string, string | Buffer>): Promise<{ reply: Promise<Reply> }> => {
      const correlationId = randomUUID();
      const reply = fx.requester.awaitReply(correlationId);
      const value = await fx.requester.encode('balanceCommands', balanceRecord('QueryBalances'), { gpsi: alphaSub.gpsi });
      const all = { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${bearer}`, ...headers };
      await fx.requester.sendRaw(fx.config.topics.balanceCommands, { key: alphaSub.gpsi, value, headers: all });
      return { reply };
    };
    const sent: { reply: Promise<Reply> }[] = [];
    for (const [, headers] of cases) sent.push(await dispatch(headers));
    const last = await dispatch({});
    const pending = await Promise.all(sent.map((s) => s.reply));
    const next = await last.reply;
    for (const [i, reply] of pending.entries()) {
      expect([reply.topic, reply.headers[HEADER.status]]).toEqual([alphaTopics.balanceReplies, 'BAD_REQUEST']);
      expect(reply.value.error.problems).toEqual([{ path: `headers.${cases[i][0]}`, reason: expect.any(String) }]);
    }
    expect(pending.map((r) => r.value.error.problems[0].reason)).toEqual([
      expect.stringContaining(`own namespace ${prefix}alpha.`),
      expect.stringContaining('does not exist'),
      expect.stringContaining('internal'),
      expect.stringContaining(`own namespace ${prefix}alpha.`),
      'must be a partition of the reply topic (0 to 1)',
    ]);
    expect([next.topic, next.headers[HEADER.status]]).toEqual([alphaTopics.balanceReplies, 'Success']);
  });
});
