import { randomBytes, randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { positionalCorrelationId } from '../../src/pipeline/envelope';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { avroString, varint, wireHeader } from '../support/avro-bytes';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { FAULT_CUSTOMER, faultConfig, faultPartnerTopics, partnerToken, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { drainTopic, groupProgress, headerString, kafkaClient } from './support/topics';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 7, item 6: poison and hostile input at volume, mixed into 1,000 valid UpdateBalances. Every bad
 * record must end in the dead-letter topic (found by its source topic, partition and offset) or be answered
 * with an error (found by its correlation id, or the one the worker derives from its position), never with
 * Success; the valid commands must all be applied exactly once; and the worker process's memory must stay
 * bounded (RSS sampled through the run).
 */
const PARTITIONS = 4;
const MB = 1024 * 1024;

interface Poison {
  kind: string;
  topic: string;
  key: string | Buffer | null;
  value: Buffer | null;
  headers?: Record<string, string | Buffer>;
  /** The correlation id the requester gave, when it gave one. */
  correlationId?: string;
  /** Default: spread round-robin. */
  partition?: number;
}

interface SentPoison extends Poison {
  partition: number;
  offset: string;
}

const randomInt = (max: number) => Math.floor(Math.random() * max);

/** Sends records one partition each, chosen here, so that every record's offset is known from the acknowledgement. */
async function sendPoison(producer: Producer, poison: Poison[], perRequest: number): Promise<SentPoison[]> {
  const sent: SentPoison[] = [];
  for (let from = 0; from < poison.length; from += perRequest) {
    const chunk = poison.slice(from, from + perRequest).map((p, i) => ({ ...p, partition: p.partition ?? (from + i) % PARTITIONS }));
    const byTopic = new Map<string, typeof chunk>();
    for (const p of chunk) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
    for (const [topic, records] of byTopic) {
      const metadata = await producer.send({ topic, acks: -1, messages: records.map(({ key, value, headers, partition }) => ({ key, value, headers, partition })) });
      const next = new Map(metadata.map((m) => [m.partition, BigInt(m.baseOffset!)]));
      for (const record of records) {
        const offset = next.get(record.partition)!;
        next.set(record.partition, offset + 1n);
        sent.push({ ...record, offset: offset.toString() });
      }
    }
  }
  return sent;
}

describe('poison and hostile input at volume, mixed into valid traffic', () => {
  let worker: WorkerProcess | undefined;
  let load: BalanceLoad | undefined;
  let sampler: NodeJS.Timeout | undefined;

  afterAll(async () => {
    clearInterval(sampler);
    await worker?.signal('SIGKILL');
    await load?.stop();
  });

  it('every bad record is dead-lettered or answered with an error, every valid command applied once, memory bounded', async () => {
    const began = Date.now();
    // At least once, as before exactly-once outputs: the RSS growth over the poison is the workload's, not the
    // mode's (on one machine, one after the other: 145 MB at least once, 152 MB exactly once)
    const config = await faultConfig({ KAFKA_DELIVERY: 'at-least-once' });
    const { topics } = config;
    await createTopics(config);
    const valid = 1000;
    load = await BalanceLoad.prepare(config, { subscriptions: 20, commands: valid, producers: 2, ratePerSecond: 250 });
    await load.watchReplies();
    const partner = kafkaClient(config.kafka.brokers, 'faults-hostile').producer({ allowAutoTopicCreation: false });
    await partner.connect();
    // a backlog the worker finds at start: records just under its 256 KiB limit, one key, one partition. Its first
    // fetch brings four, whose dead letters (one key, one DLQ partition) add up to more than the broker takes in
    // one record batch (1 MiB)
    const token = await partnerToken();
    const backlog = await sendPoison(
      partner,
      Array.from({ length: 8 }, () => {
        const correlationId = randomUUID();
        const headers = { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${token}`, [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER };
        return { kind: 'large, one key', topic: topics.balanceCommands, key: 'same-key', value: Buffer.concat([Buffer.from([1]), randomBytes(261_799)]), correlationId, headers, partition: 0 };
      }),
      1,
    );
    worker = await WorkerProcess.start(workerEnv(config));
    const rss: number[] = [];
    const rssUnread: string[] = [];
    sampler = setInterval(() => {
      if (!worker?.running) return;
      try {
        rss.push(worker.rssBytes());
      } catch (error) {
        if (worker.running) rssUnread.push((error as Error).message); // not the worker's exit between the check and the read
      }
    }, 250);

    // warm up with the first valid commands, then take the baseline
    const sending = load.send();
    await load.repliedAtLeast(200, 60_000);
    const rssBefore = worker.rssBytes();

    const codec = new AvroCodec(config.schemaRegistryUrl);
    // Aimed at the real, active subscriptions of the valid load, by the partner that owns them with a valid
    // token: a poison record the worker wrongly accepted would answer Success and change a balance (both fail
    // the test), not NOT_FOUND for a number that has no subscription.
    const targets = load.targets;
    const target = () => targets[randomInt(targets.length)];
    const update = (t = target()) =>
      codec.encode(topics.balanceCommands, 'wholesale.balance.v1.UpdateBalances', {
        gpsi: t.gpsi,
        balances: [{ subBalanceInstId: t.subBalanceInstId, balanceType: 'Main', subBalanceType: t.subBalanceType, action: 'Add', quantity: 1, unitType: t.unitType }],
      });
    const validTarget = target();
    const validBody = await update(validTarget);
    const gpsi = () => target().gpsi;
    const bearer = `Bearer ${await partnerToken()}`;
    const withId = (p: Omit<Poison, 'headers' | 'correlationId'>, extra: Record<string, string | Buffer> = {}): Poison => {
      const correlationId = randomUUID();
      return { ...p, correlationId, headers: { [HEADER.correlationId]: correlationId, [HEADER.authorization]: bearer, [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER, ...extra } };
    };
    const commandTopics = [topics.balanceCommands, topics.balanceCommands, topics.portinCommands, topics.npResponses];

    const small: Poison[] = [
      // 10,000 random byte strings over the command topics and the NP responses; a third carry a correlation id
      ...Array.from({ length: 10_000 }, (_, i) => {
        const raw = { kind: 'random bytes', topic: commandTopics[i % commandTopics.length], key: i % 5 === 0 ? null : gpsi(), value: randomBytes(randomInt(300)) };
        // the others carry the partner's token (else they would be refused unread) but no correlation id
        return i % 3 === 0 ? withId(raw) : { ...raw, headers: { [HEADER.authorization]: bearer, [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } };
      }),
      // valid Avro cut short (the 5-byte wire header kept)
      ...(await Promise.all(
        Array.from({ length: 500 }, async () => {
          const body = await update();
          return withId({ kind: 'truncated Avro', topic: topics.balanceCommands, key: gpsi(), value: body.subarray(0, 5 + randomInt(body.length - 5)) });
        }),
      )),
      // valid Avro of records that have no handler on the balance topic
      ...(await Promise.all(
        Array.from({ length: 200 }, async (_, i) =>
          withId({
            kind: 'wrong record',
            topic: topics.balanceCommands,
            key: gpsi(),
            value:
              i % 2 === 0
                ? await codec.encode(topics.portinCommands, 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: gpsi() })
                : await codec.encode(topics.balanceReplies, 'wholesale.balance.v1.QueryBalancesReply', { status: 'Success', balances: [] }),
          }),
        ),
      )),
      // the wire format with schema ids the registry never gave
      ...Array.from({ length: 300 }, (_, i) =>
        withId({ kind: 'unknown schema id', topic: topics.balanceCommands, key: gpsi(), value: Buffer.concat([wireHeader(1_500_000_000 + i), randomBytes(20)]) }),
      ),
      // a few bytes whose array claims 2^20 to 2^40 items (avsc alone exhausts the heap on 2^30)
      ...Array.from({ length: 50 }, (_, i) =>
        withId({
          kind: 'Avro block bomb',
          topic: topics.balanceCommands,
          key: gpsi(),
          value: Buffer.concat([wireHeader(validBody.readUInt32BE(1)), avroString(validTarget.gpsi), varint(2 ** (20 + (i % 3) * 10))]),
        }),
      ),
      // a valid command for a real subscription with no headers at all, or with a correlation id but no token
      ...Array.from({ length: 200 }, () => ({ kind: 'missing headers', topic: topics.balanceCommands, key: gpsi(), value: validBody })),
      ...Array.from({ length: 100 }, () => {
        const correlationId = randomUUID();
        return { kind: 'missing headers', topic: topics.balanceCommands, key: gpsi(), value: validBody, correlationId, headers: { [HEADER.correlationId]: correlationId } };
      }),
    ];
    const large: Poison[] = [
      // huge headers: a 200 KB correlation id, a 200 KB wholesale customer, 600 headers of 1 KB on random bytes
      ...Array.from({ length: 20 }, () => ({
        kind: 'huge headers',
        topic: topics.balanceCommands,
        key: gpsi(),
        value: validBody,
        headers: { [HEADER.correlationId]: 'c'.repeat(200_000), [HEADER.authorization]: bearer, [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER },
      })),
      ...Array.from({ length: 20 }, () => withId({ kind: 'huge headers', topic: topics.balanceCommands, key: gpsi(), value: validBody }, { [HEADER.wholesaleCustomerId]: 'w'.repeat(200_000) })),
      ...Array.from({ length: 10 }, () => ({
        kind: 'huge headers',
        topic: topics.balanceCommands,
        key: 'same-key',
        value: randomBytes(1000),
        headers: Object.fromEntries(Array.from({ length: 600 }, (_, h) => [`x-junk-${h}`, randomBytes(1000)])),
      })),
      // records near the broker's 1 MiB limit: over the worker's limit, dead-lettered cut to fit
      ...Array.from({ length: 3 }, () => withId({ kind: 'near 1 MiB', topic: topics.balanceCommands, key: 'same-key', value: randomBytes(900_000) })),
    ];
    const poisonBegan = Date.now();
    const shuffled = [...small].sort(() => Math.random() - 0.5);
    const sent = [...backlog, ...(await sendPoison(partner, shuffled, 200)), ...(await sendPoison(partner, large, 1))];
    await partner.disconnect();
    const poisonSentMs = Date.now() - poisonBegan;
    await sending;
    await worker.whileRunning(load.settled(120_000));

    // every poison record accounted for: its dead letter (by source position) or its error reply
    const dlq = new Set(
      (await drainTopic(config.kafka.brokers, topics.deadLetters, 120_000)).map((d) =>
        [headerString(d, DLQ_HEADER.sourceTopic), headerString(d, DLQ_HEADER.sourcePartition), headerString(d, DLQ_HEADER.sourceOffset)].join('/'),
      ),
    );
    const replies = new Map<string, string>();
    // the partner's own reply topics (and the legacy ones, which nothing here should reach)
    const own = faultPartnerTopics(config);
    for (const topic of [own.balanceReplies, own.portinReplies, topics.balanceReplies, topics.portinReplies]) {
      for (const reply of await drainTopic(config.kafka.brokers, topic, 120_000)) replies.set(headerString(reply, HEADER.correlationId)!, headerString(reply, HEADER.status)!);
    }
    // the worker answers a record without a usable correlation id under one derived from its position
    const answerIdOf = (p: SentPoison) => p.correlationId ?? positionalCorrelationId(p);
    const byKind = new Map<string, { sent: number; dlq: number; errors: number; success: number; unaccounted: number }>();
    // refusals of a bad record; anything else (INTERNAL, NOT_FOUND, CONFLICT, Success) is not an account of it
    const REFUSALS = new Set(['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN']);
    const otherStatuses = new Map<string, number>();
    const unaccounted: string[] = [];
    for (const p of sent) {
      const counts = byKind.get(p.kind) ?? { sent: 0, dlq: 0, errors: 0, success: 0, unaccounted: 0 };
      byKind.set(p.kind, counts);
      counts.sent++;
      const inDlq = dlq.has(`${p.topic}/${p.partition}/${p.offset}`);
      const status = replies.get(answerIdOf(p));
      if (inDlq) counts.dlq++;
      const refused = status !== undefined && REFUSALS.has(status);
      if (refused) counts.errors++;
      if (status === 'Success') counts.success++;
      if (status !== undefined && !refused) otherStatuses.set(status, (otherStatuses.get(status) ?? 0) + 1);
      if (!inDlq && !refused) {
        counts.unaccounted++;
        if (unaccounted.length < 5) unaccounted.push(`${p.kind} ${p.topic}/${p.partition}/${p.offset} ${p.value?.subarray(0, 16).toString('hex')}`);
      }
    }
    clearInterval(sampler);
    const rssAfter = worker.rssBytes();
    const rssPeak = Math.max(...rss);
    const rssSamples = rss.length;
    const tally = await load.tally();

    // The same poison on the balance commands, eight rounds more (≈ 18 MB of records each). The first round's
    // growth cannot tell a leak from the heap sizing itself for the poison; over more rounds the heap settles
    // (12 rounds: 339, 363, 361, 367, 363, 370, 368, 377, 365, 365, 371, 371 MB), while a worker that kept what
    // it is sent would grow by what each round brings. RSS is read once the worker committed past each round.
    const LATER_ROUNDS = 8;
    const again = kafkaClient(config.kafka.brokers, 'faults-hostile-again').producer({ allowAutoTopicCreation: false });
    await again.connect();
    const laterBegan = Date.now();
    const rssAfterRounds: number[] = [];
    let progress = { committed: 0, end: 0 };
    for (let round = 0; round < LATER_ROUNDS; round++) {
      await sendPoison(
        again,
        small.filter((p) => p.topic === topics.balanceCommands),
        200,
      );
      await sendPoison(again, large, 1);
      do {
        await new Promise((resolve) => setTimeout(resolve, 500));
        progress = await groupProgress(config.kafka.brokers, config.groupId, topics.balanceCommands);
      } while (progress.committed < progress.end && Date.now() - laterBegan < 240_000);
      rssAfterRounds.push(worker.rssBytes());
    }
    await again.disconnect();
    const laterGrowth = rssAfterRounds.at(-1)! - rssAfter;
    /** From the fourth later round to the eighth: four rounds, ≈ 72 MB of records, after the heap settled. */
    const settledGrowth = rssAfterRounds[7] - rssAfterRounds[3];
    const total = [...byKind.values()].reduce((sum, c) => ({ sent: sum.sent + c.sent, dlq: sum.dlq + c.dlq, errors: sum.errors + c.errors, unaccounted: sum.unaccounted + c.unaccounted }), {
      sent: 0,
      dlq: 0,
      errors: 0,
      unaccounted: 0,
    });
    report('poison and hostile input', tally, [
      `poison sent ${total.sent} in ${(poisonSentMs / 1000).toFixed(1)} s: dead-lettered ${total.dlq}, refused (BAD_REQUEST, UNAUTHORIZED, FORBIDDEN) ${total.errors}, other answers ${JSON.stringify(Object.fromEntries(otherStatuses))}, unaccounted ${total.unaccounted}`,
      [...byKind].map(([kind, c]) => `${kind} ${c.sent}/${c.dlq} DLQ/${c.errors} errors`).join(', '),
      `worker RSS ${(rssBefore / MB).toFixed(0)} MB before the poison, peak ${(rssPeak / MB).toFixed(0)} MB of ${rssSamples} readings, ${(rssAfter / MB).toFixed(0)} MB after`,
      `${LATER_ROUNDS} more rounds of the poison's balance-command records (committed ${progress.committed} of ${progress.end} in ${seconds(laterBegan)}): worker RSS after each ${rssAfterRounds.map((b) => (b / MB).toFixed(0)).join(', ')} MB, ${(laterGrowth / MB).toFixed(0)} MB over the first round's, ${(settledGrowth / MB).toFixed(0)} MB from the fourth to the eighth`,
      `worker outcomes ${JSON.stringify(worker.outcomes())}, same process: ${worker.running}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    expect(unaccounted).toEqual([]);
    expect([...byKind.values()].every((c) => c.success === 0)).toBe(true);
    expect(Object.fromEntries(otherStatuses)).toEqual({}); // no INTERNAL, no NOT_FOUND: refused, not mishandled
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, valid);
    // bounded, on readings (rssBytes throws rather than answer 0) taken all along: no runaway — an Avro block
    // or decompression bomb takes hundreds of MB at once. The growth the poison (≈ 20 MB of records) leaves is
    // the heap sizing itself for it: 134–163 MB in seven runs on the 2-core machine, both delivery modes, so
    // the bound is 200 MB (150 MB failed CI at 150.4). A leak of the poison's own 20 MB would not show here:
    // the later rounds below are the leak check.
    expect(rssUnread).toEqual([]);
    expect(rssSamples).toBeGreaterThan(0);
    expect(Math.min(rssBefore, rssAfter, ...rss)).toBeGreaterThan(0);
    expect(rssAfter - rssBefore).toBeLessThan(200 * MB);
    expect(rssPeak).toBeLessThan(rssBefore + 300 * MB);
    // no leak of the poison: four rounds after the heap settled (≈ 72 MB of records) leave under 40 MB, which a
    // worker keeping half of what it is sent would pass (−11 to 11 MB in three runs here)
    expect(progress.committed).toBe(progress.end);
    expect(settledGrowth).toBeLessThan(40 * MB);
  });
});
