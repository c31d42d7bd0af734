import { randomUUID } from 'node:crypto';
import type { CompressionTypes, Producer } from 'kafkajs';
import type { ServiceConfig } from '../../../src/app/config';
import { loadCatalog } from '../../../src/app/service';
import { createBalanceComponents, type BalanceComponents } from '../../../src/app/balance';
import { createRedisClient, type RedisClient } from '../../../src/adapters/redis/client';
import type { ProduceCall } from '../../../src/adapters/kafka/spanning-calls';
import { createPartitionedSender } from '../../../src/adapters/kafka/partitioned-sender';
import { AvroCodec } from '../../../src/adapters/registry/avro-codec';
import { registerContract } from '../../../src/adapters/registry/register-contract';
import { HEADER } from '../../../src/contract/headers';
import { createActiveSubscription, type TestSubscription } from '../../support/subscriptions';
import { FAULT_CUSTOMER, faultPartnerTopics, partnerHeaders } from './fault-config';
import type { Counts } from './report';
import { balanceInvariantViolations } from './balance-invariant';
import { readCommitted } from './second-reader';
import { drainTopic, groupProgress, headerString, kafkaClient, TEST_SESSION, type OffsetRange } from './topics';

/**
 * The fixed workload of the fault tests: `commands` UpdateBalances, each "Add 1" to one sub-balance,
 * spread round-robin over every sub-balance of `subscriptions` active subscriptions, sent by `producers`
 * producers at about `ratePerSecond`, keyed by gpsi, each with its own correlation id. A send that fails
 * (Kafka away) is sent again as it was, as a partner would. The final state is checked against what was
 * sent: every sub-balance must end at its start plus 1 per Add sent to it, the ledgers must hold each
 * command's Add exactly once, every command must have a Success reply and one billing event (one ce_id).
 */
export interface BalanceLoadOptions {
  subscriptions: number;
  commands: number;
  producers: number;
  ratePerSecond: number;
  /** How the partner compresses its batches (none by default). */
  compression?: CompressionTypes;
}

interface PlannedCommand {
  correlationId: string;
  subscription: TestSubscription;
  subBalanceInstId: string;
  subBalanceType: string;
  unitType: string;
}

export interface BalanceTally extends Counts {
  /** Reply records read for our correlation ids (more than `replied` when a redelivery answered again). */
  replyCopies: number;
  /** Commands whose record the partners' producers wrote more than once (a retried send): each record is answered. */
  commandsWrittenTwice: number;
  notSuccess: number;
  /** Distinct ce_id of BalancesUpdated events for our commands, and event records in all. */
  eventIds: number;
  eventCopies: number;
  /**
   * Commands with more than one distinct event content: the same change published again has the same
   * bytes (its recorded outcome replayed), a second application of it another balance after it. Not the
   * ce_id, which is derived from the command id and so the same whatever happened.
   */
  eventDuplicates: number;
  /** Sub-balances whose final remaining differs from start + Adds sent, as `id: got X, expected Y`. */
  balanceMismatches: string[];
  /** Sub-balances of the load's subscriptions, all compared with start + Adds sent. */
  subBalances: number;
  /** Numbers whose ledger does not hold their commands in the order of the command topic (per-key order). */
  orderViolations: string[];
  numbers: number;
  /** The reply and event records again, as a second read_committed client (second-reader.ts) counts them. */
  secondReader: SecondReaderCounts;
  /** Every breach of the balance invariant on the load's numbers (balance-invariant.ts); [] when it holds. */
  invariantViolations: string[];
}

/** What both read_committed readers count: our reply records, our BalancesUpdated records, and the copies among them. */
export interface SecondReaderCounts {
  replyCopies: number;
  eventCopies: number;
  copies: { replies: number; events: number };
}

const UPDATE_BALANCES = 'wholesale.balance.v1.UpdateBalances';
const CHUNK = 25;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many times each id occurs. */
function countById(ids: (string | undefined)[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

export class BalanceLoad {
  private readonly sent = new Set<string>();
  private readonly progress = new Set<string>();
  private sendAttemptsFailed = 0;
  private stopProgress?: () => Promise<void>;

  private constructor(
    readonly config: ServiceConfig,
    private readonly options: BalanceLoadOptions,
    private readonly redis: RedisClient,
    private readonly balance: BalanceComponents,
    private readonly codec: AvroCodec,
    private readonly commands: PlannedCommand[],
    /** subBalanceInstId → remaining (milli-units) before the load. */
    private readonly start: Map<string, number>,
    private readonly subscriptions: TestSubscription[],
  ) {}

  /** Creates the subscriptions in Redis, registers the contract and plans the commands. */
  static async prepare(config: ServiceConfig, options: BalanceLoadOptions): Promise<BalanceLoad> {
    const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster, maxRetriesPerRequest: 20 });
    const balance = createBalanceComponents({ config, catalog: loadCatalog(config.catalogFile), redis });
    const codec = new AvroCodec(config.schemaRegistryUrl);
    await registerContract(codec, config.topics);
    const subscriptions = await Promise.all(Array.from({ length: options.subscriptions }, () => createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: FAULT_CUSTOMER })));
    const start = new Map<string, number>();
    const targets: Omit<PlannedCommand, 'correlationId'>[][] = [];
    for (const subscription of subscriptions) {
      const { balances } = await balance.balances.queryBalances(subscription.gpsi, [subscription.wholesaleCustomerId]);
      for (const b of balances) start.set(b.subBalanceInstId, b.remaining);
      targets.push(balances.map((b) => ({ subscription, subBalanceInstId: b.subBalanceInstId, subBalanceType: b.subBalanceType, unitType: b.unitType })));
    }
    const commands = Array.from({ length: options.commands }, (_, i) => {
      const ofSubscription = targets[i % targets.length];
      return { ...ofSubscription[Math.floor(i / targets.length) % ofSubscription.length], correlationId: randomUUID() };
    });
    return new BalanceLoad(config, options, redis, balance, codec, commands, start, subscriptions);
  }

  /** The sub-balances the commands add to (real, active subscriptions), for records aimed at them. */
  get targets(): { gpsi: string; subBalanceInstId: string; subBalanceType: string; unitType: string }[] {
    return this.commands.map((c) => ({ gpsi: c.subscription.gpsi, subBalanceInstId: c.subBalanceInstId, subBalanceType: c.subBalanceType, unitType: c.unitType }));
  }

  /** The planned commands as a partner's own client would send them (tally() compares the state with these). */
  get planned(): { correlationId: string; gpsi: string; customer: string; value: object }[] {
    return this.commands.map((c) => ({
      correlationId: c.correlationId,
      gpsi: c.subscription.gpsi,
      customer: c.subscription.wholesaleCustomerId,
      value: {
        gpsi: c.subscription.gpsi,
        balances: [{ subBalanceInstId: c.subBalanceInstId, balanceType: 'Main', subBalanceType: c.subBalanceType, action: 'Add', quantity: 1, unitType: c.unitType }],
      },
    }));
  }

  /** Encodes a command value as the partner's producer would (the registry's schema for the command topic). */
  encodeCommand(value: object): Promise<Buffer> {
    return this.codec.encode(this.config.topics.balanceCommands, UPDATE_BALANCES, value);
  }

  get size(): number {
    return this.commands.length;
  }

  /** Distinct correlation ids answered so far (after watchReplies). */
  get replied(): number {
    return this.progress.size;
  }

  get sentCount(): number {
    return this.sent.size;
  }

  get failedSends(): number {
    return this.sendAttemptsFailed;
  }

  /** Follows the reply topic to report progress (the final count reads the whole topic again). */
  async watchReplies(brokers = this.config.kafka.brokers): Promise<void> {
    const consumer = kafkaClient(brokers, 'faults-progress').consumer({ maxWaitTimeInMs: 500, groupId: `progress-${randomUUID()}`, allowAutoTopicCreation: false, ...TEST_SESSION });
    await consumer.connect();
    await consumer.subscribe({ topics: [faultPartnerTopics(this.config).balanceReplies], fromBeginning: true });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({
      eachMessage: async ({ message }) => {
        const id = headerString(message, HEADER.correlationId);
        if (id) this.progress.add(id);
      },
    });
    await joined;
    this.stopProgress = () => consumer.disconnect();
  }

  /** Resolves once `count` distinct commands were answered. */
  async repliedAtLeast(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.progress.size < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.progress.size} of ${count} replies within ${timeoutMs} ms (sent ${this.sent.size})`);
      await sleep(50);
    }
  }

  /** Sends every command (resolves when all were acknowledged by Kafka at least once). */
  async send(brokers = this.config.kafka.brokers): Promise<void> {
    const { producers, ratePerSecond } = this.options;
    const kafka = kafkaClient(brokers, 'faults-partner');
    const clients: Producer[] = Array.from({ length: producers }, () => kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 } }));
    await Promise.all(clients.map((p) => p.connect()));
    const began = Date.now();
    const chunkInterval = (CHUNK * producers * 1000) / ratePerSecond;
    try {
      await Promise.all(
        clients.map(async (producer, p) => {
          const mine = this.commands.filter((_, i) => i % producers === p);
          for (let from = 0, round = 0; from < mine.length; from += CHUNK, round++) {
            const due = began + round * chunkInterval;
            if (due > Date.now()) await sleep(due - Date.now());
            await this.sendChunk(producer, mine.slice(from, from + CHUNK));
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((p) => p.disconnect().catch(() => undefined)));
    }
  }

  private async sendChunk(producer: Producer, chunk: PlannedCommand[]): Promise<void> {
    const messages = await Promise.all(
      chunk.map(async (c) => ({
        key: c.subscription.gpsi,
        value: await this.codec.encode(this.config.topics.balanceCommands, UPDATE_BALANCES, {
          gpsi: c.subscription.gpsi,
          balances: [{ subBalanceInstId: c.subBalanceInstId, balanceType: 'Main', subBalanceType: c.subBalanceType, action: 'Add', quantity: 1, unitType: c.unitType }],
        }),
        headers: await partnerHeaders(c.correlationId, c.subscription.wholesaleCustomerId),
      })),
    );
    // the partner writes one partition per call too: kafkajs can drop part of a multi-broker call when a broker dies
    const { compression } = this.options;
    const sendPartition: ProduceCall = async (run) => {
      await producer.send({
        topic: run[0].topic,
        acks: -1,
        ...(compression === undefined ? {} : { compression }),
        messages: run.map(({ key, value, headers, partition }) => ({ key, value, headers, partition })),
      });
    };
    const sender = createPartitionedSender(sendPartition, async () => this.config.kafka.topicPartitions);
    for (;;) {
      try {
        await sender.send(messages.map((m) => ({ ...m, topic: this.config.topics.balanceCommands })));
        for (const c of chunk) this.sent.add(c.correlationId);
        return;
      } catch {
        this.sendAttemptsFailed++;
        await sleep(500);
      }
    }
  }

  /**
   * Waits until every command was sent and the worker group committed the whole command topic: then every
   * reply and event was acknowledged by Kafka. Asks with a fresh admin client each time (a long-lived client
   * can keep stale metadata through a broker failure); returns how long it took.
   */
  async settled(timeoutMs: number, brokers = this.config.kafka.brokers): Promise<number> {
    const began = Date.now();
    let last = { committed: 0, end: 0 };
    for (;;) {
      if (this.sent.size === this.commands.length) {
        last = await groupProgress(brokers, this.config.groupId, this.config.topics.balanceCommands).catch(() => last);
        if (last.end > 0 && last.committed === last.end) return Date.now() - began;
      }
      if (Date.now() - began > timeoutMs) throw new Error(`not settled within ${timeoutMs} ms: sent ${this.sent.size} of ${this.commands.length}, committed ${last.committed} of ${last.end}`);
      await sleep(500);
    }
  }

  /** Where the commands' topic order is read from: only this range (see drainTopic), else the whole topic. */
  private commandRange?: OffsetRange;

  /** Reads the command topic's order only within `range` (a test that put batches on it the test's own client cannot read). */
  readCommandsWithin(range: OffsetRange): void {
    this.commandRange = range;
  }

  /** Compares the final state (Redis, the reply and event topics) with what was sent. */
  async tally(brokers = this.config.kafka.brokers): Promise<BalanceTally> {
    const ours = new Set(this.commands.map((c) => c.correlationId));
    const replies = await drainTopic(brokers, faultPartnerTopics(this.config).balanceReplies);
    const repliedIds = new Set<string>();
    const repliesById = new Map<string, number>();
    let replyCopies = 0;
    let notSuccess = 0;
    for (const reply of replies) {
      const id = headerString(reply, HEADER.correlationId);
      if (!id || !ours.has(id)) continue;
      replyCopies++;
      repliedIds.add(id);
      repliesById.set(id, (repliesById.get(id) ?? 0) + 1);
      if (headerString(reply, HEADER.status) !== 'Success') notSuccess++;
    }
    const events = await drainTopic(brokers, this.config.topics.balanceEvents);
    const eventIdsByCommand = new Map<string, Set<string>>();
    const eventContentsByCommand = new Map<string, Set<string>>();
    const eventsById = new Map<string, number>();
    let eventCopies = 0;
    for (const event of events) {
      const id = headerString(event, 'ce_correlationid');
      if (!id || !ours.has(id) || headerString(event, 'ce_type') !== 'wholesale.balance.v1.BalancesUpdated') continue;
      eventCopies++;
      eventsById.set(id, (eventsById.get(id) ?? 0) + 1);
      const ids = eventIdsByCommand.get(id) ?? new Set<string>();
      ids.add(headerString(event, 'ce_id')!);
      eventIdsByCommand.set(id, ids);
      const contents = eventContentsByCommand.get(id) ?? new Set<string>();
      contents.add(event.value?.toString('base64') ?? '');
      eventContentsByCommand.set(id, contents);
    }
    // per-number order: each number's commands in topic (offset) order, first occurrence of each
    const topicOrder = new Map<string, string[]>();
    const seen = new Set<string>();
    // a partner's producer that retries a send Kafka wrote but did not acknowledge (a broker lost) writes the
    // command twice; each record is answered (docs/reliability.md: a record consumed twice is answered twice)
    const commandRecordsById = new Map<string, number>();
    for (const command of await drainTopic(brokers, this.config.topics.balanceCommands, 60_000, this.commandRange)) {
      const id = headerString(command, HEADER.correlationId);
      if (id && ours.has(id)) commandRecordsById.set(id, (commandRecordsById.get(id) ?? 0) + 1);
      if (!id || !ours.has(id) || seen.has(id)) continue;
      seen.add(id);
      const gpsi = command.key!.toString();
      topicOrder.set(gpsi, [...(topicOrder.get(gpsi) ?? []), id]);
    }
    const second = await readCommitted(brokers, [faultPartnerTopics(this.config).balanceReplies, this.config.topics.balanceEvents]);
    const secondReplies = countById(
      (second.get(faultPartnerTopics(this.config).balanceReplies) ?? []).map((r) => r.headers.get(HEADER.correlationId)).filter((id) => id !== undefined && ours.has(id)),
    );
    const secondEvents = countById(
      (second.get(this.config.topics.balanceEvents) ?? [])
        .filter((r) => r.headers.get('ce_type') === 'wholesale.balance.v1.BalancesUpdated')
        .map((r) => r.headers.get('ce_correlationid'))
        .filter((id) => id !== undefined && ours.has(id)),
    );
    const orderViolations: string[] = [];
    const appliedById = new Map<string, number>();
    const expected = new Map(this.start);
    for (const c of this.commands) expected.set(c.subBalanceInstId, expected.get(c.subBalanceInstId)! + 1000);
    const balanceMismatches: string[] = [];
    let subBalances = 0;
    for (const subscription of this.subscriptions) {
      const { gpsi, wholesaleCustomerId } = subscription;
      const ledger = await this.balance.balances.history(gpsi, [wholesaleCustomerId], 500);
      const adds = ledger.filter((entry) => entry.change === 'Add' && ours.has(entry.correlationId)).reverse(); // the ledger is newest first
      for (const entry of adds) appliedById.set(entry.correlationId, (appliedById.get(entry.correlationId) ?? 0) + 1);
      if (JSON.stringify(adds.map((e) => e.correlationId)) !== JSON.stringify(topicOrder.get(gpsi) ?? [])) orderViolations.push(gpsi);
      const { balances } = await this.balance.balances.queryBalances(gpsi, [wholesaleCustomerId]);
      for (const b of balances) {
        subBalances++;
        if (b.remaining !== expected.get(b.subBalanceInstId)) balanceMismatches.push(`${b.subBalanceInstId}: got ${b.remaining}, expected ${expected.get(b.subBalanceInstId)}`);
      }
    }
    const invariantViolations = await balanceInvariantViolations(
      { redis: this.redis, balance: this.balance, catalog: loadCatalog(this.config.catalogFile), keyPrefix: this.config.redis.keyPrefix, ledgerRetention: this.config.balance.ledgerRetention },
      this.subscriptions,
    );
    const applied = [...appliedById.values()].reduce((sum, n) => sum + n, 0);
    const eventIds = [...eventIdsByCommand.values()].reduce((sum, ids) => sum + ids.size, 0);
    // copies: records beyond one per command record on the topic (one per correlation id unless a partner wrote it twice)
    const beyond = (counts: Map<string, number>) => [...counts].reduce((sum, [id, n]) => sum + Math.max(0, n - (commandRecordsById.get(id) ?? 1)), 0);
    const commandsWrittenTwice = [...commandRecordsById.values()].filter((n) => n > 1).length;
    return {
      // what Kafka holds, not what the producers were told: a send acknowledged but dropped is missing here
      sent: seen.size,
      replied: repliedIds.size,
      applied,
      duplicates: applied - appliedById.size,
      lost: [...ours].filter((id) => !appliedById.has(id)).length,
      replyCopies,
      notSuccess,
      copies: { replies: beyond(repliesById), events: beyond(eventsById) },
      commandsWrittenTwice,
      eventIds,
      eventCopies,
      eventDuplicates: [...eventContentsByCommand.values()].filter((contents) => contents.size > 1).length,
      balanceMismatches,
      subBalances,
      orderViolations,
      numbers: this.subscriptions.length,
      secondReader: {
        replyCopies: [...secondReplies.values()].reduce((sum, n) => sum + n, 0),
        eventCopies: [...secondEvents.values()].reduce((sum, n) => sum + n, 0),
        copies: { replies: beyond(secondReplies), events: beyond(secondEvents) },
      },
      invariantViolations,
    };
  }

  async stop(): Promise<void> {
    await this.stopProgress?.();
    this.redis.disconnect();
  }
}

/**
 * The figures besides the counts, for the report line. The first two are the independent check: they do not
 * read the ledger's entries (which `applied` and `duplicates` count) but each sub-balance's remaining and the
 * ledger's order against the command topic's.
 */
export const tallyExtras = (t: BalanceTally): string[] => [
  `sub-balances at their start plus one per Add sent ${t.subBalances - t.balanceMismatches.length}/${t.subBalances}`,
  `per-number order of the topic kept in the ledger for ${t.numbers - t.orderViolations.length}/${t.numbers} numbers`,
  `reply records ${t.replyCopies}; commands the partners wrote twice ${t.commandsWrittenTwice}`,
  `billing events ${t.eventIds} distinct ids / ${t.eventCopies} records, ${t.eventDuplicates} commands with differing event contents`,
  `a second read_committed client read reply records ${t.secondReader.replyCopies}, event records ${t.secondReader.eventCopies}`,
  `balance invariant (granted = used + reserved + available, ledger = balance) held on ${t.subBalances} sub-balances, ${t.invariantViolations.length} violations`,
];

/**
 * Exactly once: every command answered Success, applied once, its event published under one id, balances
 * exact — and, read read_committed, one reply record per command and one event record per event id.
 */
export function expectExactlyOnce(t: BalanceTally, sent: number): void {
  expect({ sent: t.sent, replied: t.replied, applied: t.applied, duplicates: t.duplicates, lost: t.lost }).toEqual({ sent, replied: sent, applied: sent, duplicates: 0, lost: 0 });
  expect(t.notSuccess).toBe(0);
  expect(t.subBalances).toBeGreaterThan(0);
  expect(t.balanceMismatches).toEqual([]);
  expect(t.orderViolations).toEqual([]);
  expect(t.invariantViolations).toEqual([]);
  expect({ eventIds: t.eventIds, eventDuplicates: t.eventDuplicates }).toEqual({ eventIds: sent, eventDuplicates: 0 });
  expect(t.copies).toEqual({ replies: 0, events: 0 });
  // the same records read by another client: a filter of aborted transactions wrong in one of them shows here
  expect(t.secondReader).toEqual({ replyCopies: t.replyCopies, eventCopies: t.eventCopies, copies: t.copies });
}
