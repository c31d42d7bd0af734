// After a nemesis run: the records, ledgers, balances and offsets it left, added to the history as the
// checker reads them. Commands are read by kafkajs (read_committed), replies and events by the second
// reader (@platformatic/kafka, read_committed): aborted transactions are filtered by both clients. The port-ins: their states and event records (recordPortStates).
import { randomUUID } from 'node:crypto';
import { Consumer, FetchIsolationLevels, ListOffsetTimestamps } from '@platformatic/kafka';
import type { ServiceConfig } from '../../../src/app/config';
import type { BalanceComponents } from '../../../src/app/balance';
import type { RedisClient } from '../../../src/adapters/redis/client';
import { subscriberKeys } from '../../../src/adapters/redis/keys';
import { HEADER } from '../../../src/contract/headers';
import { faultPartnerTopics, FAULT_CUSTOMER } from '../../faults/support/fault-config';
import { readCommitted } from '../../faults/support/second-reader';
import { drainTopic, headerString, kafkaClient } from '../../faults/support/topics';
import type { History, HistoryEvent } from './history';
import type { PortWorkload } from './ports';

/** The events a command of the run publishes: an UpdateBalances', a transfer's (completed or reversed), a reservation command's. */
const COMMAND_EVENTS = new Set(
  ['BalancesUpdated', 'BalanceTransferred', 'TransferReversed', 'BalanceReserved', 'ReservationCommitted', 'ReservationReleased'].map((name) => `wholesale.balance.v1.${name}`),
);
const RESERVATION_EXPIRED = 'wholesale.balance.v1.ReservationExpired';
/** An expiry event's correlation id: the scheduler's, naming the reservation (src/schedulers/reservation-expiry.ts). */
const EXPIRY_CORRELATION = /^reservation-expiry-(.+)$/;
/** Ledger entries read per number: below BALANCE_LEDGER_RETENTION (1,000), which drops the oldest beyond it. */
const LEDGER_READ = 900;

/** Each partition's committed offset of the group and its end offset. */
async function partitionOffsets(brokers: string[], groupId: string, topic: string): Promise<{ topic: string; partition: number; committed: number; end: number }[]> {
  const admin = kafkaClient(brokers).admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const ends = await admin.fetchTopicOffsets(topic);
    return ends.map((e) => ({ topic, partition: e.partition, end: Number(e.high), committed: Math.max(0, Number(offsets.partitions.find((p) => p.partition === e.partition)?.offset ?? 0)) }));
  } finally {
    await admin.disconnect();
  }
}

/** Each partition of `topics` whose last stable offset is below its high watermark: a transaction is open on it. */
async function heldPartitions(brokers: string[], topics: string[]): Promise<Extract<HistoryEvent, { kind: 'held' }>[]> {
  const consumer = new Consumer({ clientId: 'nemesis-offsets', bootstrapBrokers: brokers, groupId: `nemesis-offsets-${randomUUID()}` });
  try {
    const [stable, end] = await Promise.all(
      [FetchIsolationLevels.READ_COMMITTED, FetchIsolationLevels.READ_UNCOMMITTED].map((isolationLevel) =>
        consumer.listOffsets({ topics, timestamp: ListOffsetTimestamps.LATEST, isolationLevel }),
      ),
    );
    return topics.flatMap((topic) =>
      (end.get(topic) ?? []).flatMap((high, partition) => {
        const lso = stable.get(topic)?.[partition] ?? high;
        return lso < high ? [{ kind: 'held' as const, topic, partition, stable: Number(lso), end: Number(high) }] : [];
      }),
    );
  } finally {
    await consumer.close(true);
  }
}

/**
 * Waits until no transaction is open on the command topics (or the time is up), and gives the partitions
 * still held. Until then the records after an open transaction's first are readable by nobody, the workers
 * included: kafkajs's fetchTopicOffsets even gives the last stable offset as the end, and a read of the
 * topic "to its end" then misses every record acknowledged after it.
 */
export async function waitStable(config: ServiceConfig, timeoutMs: number): Promise<Extract<HistoryEvent, { kind: 'held' }>[]> {
  const began = Date.now();
  for (;;) {
    const held = await heldPartitions(config.kafka.brokers, commandTopics(config)).catch(() => undefined);
    if (held?.length === 0) return [];
    if (Date.now() - began > timeoutMs) return held ?? [];
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The command topics the run's partners write: the shared one (Kafka partners) and the partner's own (the gateway's). */
export const commandTopics = (config: ServiceConfig): string[] => [config.topics.balanceCommands, faultPartnerTopics(config).balanceCommands];

/** The run's command records (read_committed: aborted ones left out), as the history records them. */
export async function commandRecords(config: ServiceConfig, history: History): Promise<Extract<HistoryEvent, { kind: 'command' }>[]> {
  const ours = new Set(history.flatMap((e) => (e.kind === 'send' ? [e.id] : [])));
  const records = await Promise.all(commandTopics(config).map(async (topic) => ({ topic, records: await drainTopic(config.kafka.brokers, topic) })));
  return records.flatMap(({ topic, records: ofTopic }) =>
    ofTopic.flatMap((record) => {
      const id = headerString(record, HEADER.correlationId);
      return id && ours.has(id) ? [{ kind: 'command' as const, id, gpsi: record.key!.toString(), topic, partition: record.partition, offset: Number(record.offset) }] : [];
    }),
  );
}

/**
 * Waits until the worker group committed past every command record (or the time is up: the checker then
 * finds the records left behind). Not the end offsets: a partition's last may be a transaction marker's.
 */
export async function waitCommitted(config: ServiceConfig, commands: Extract<HistoryEvent, { kind: 'command' }>[], timeoutMs: number): Promise<number> {
  const began = Date.now();
  const needed = new Map<string, number>();
  for (const c of commands) needed.set(`${c.topic}:${c.partition}`, Math.max(needed.get(`${c.topic}:${c.partition}`) ?? 0, c.offset + 1));
  for (;;) {
    const offsets = await Promise.all(commandTopics(config).map((topic) => partitionOffsets(config.kafka.brokers, config.groupId, topic))).catch(() => undefined);
    if (offsets?.flat().every((o) => o.committed >= (needed.get(`${o.topic}:${o.partition}`) ?? 0))) return Date.now() - began;
    if (Date.now() - began > timeoutMs) return Date.now() - began;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface StartingBalance {
  gpsi: string;
  subBalanceInstId: string;
  start: number;
}

/** Adds to the history the command records, replies, events, ledgers, balances and committed offsets the run left. */
export async function recordFinalState(
  config: ServiceConfig,
  balances: BalanceComponents['balances'],
  starts: StartingBalance[],
  commands: Extract<HistoryEvent, { kind: 'command' }>[],
  history: History,
): Promise<void> {
  const { brokers } = config.kafka;
  const ours = new Set(history.flatMap((e) => (e.kind === 'send' ? [e.id] : [])));
  /** The number each command was sent for: a transfer's entries on another number are its credit. */
  const numberOf = new Map(history.flatMap((e) => (e.kind === 'send' ? [[e.id, e.gpsi] as const] : [])));
  history.push(...commands);
  const replyTopic = faultPartnerTopics(config).balanceReplies;
  const read = await readCommitted(brokers, [replyTopic, config.topics.balanceEvents]);
  (read.get(replyTopic) ?? []).forEach((reply, offset) => {
    const id = reply.headers.get(HEADER.correlationId);
    if (id && ours.has(id)) history.push({ kind: 'reply', id, status: reply.headers.get(HEADER.status) ?? '', channel: 'kafka', offset });
  });
  const reservations = new Set(history.flatMap((e) => (e.kind === 'reservation' ? [e.reservationId] : [])));
  (read.get(config.topics.balanceEvents) ?? []).forEach((event, offset) => {
    const id = event.headers.get('ce_correlationid');
    const [type, ceId] = [event.headers.get('ce_type') ?? '', event.headers.get('ce_id') ?? ''];
    if (id && ours.has(id) && COMMAND_EVENTS.has(type)) history.push({ kind: 'event', id, ceId, offset });
    const reservationId = EXPIRY_CORRELATION.exec(id ?? '')?.[1];
    // an expiry is nobody's command, but its event must reach the partner's webhook endpoint like the others
    if (id && type === RESERVATION_EXPIRED && reservationId && reservations.has(reservationId)) history.push({ kind: 'expired', reservationId, ceId }, { kind: 'event', id, ceId, offset });
  });
  for (const gpsi of new Set(starts.map((s) => s.gpsi))) {
    const entries = (await balances.history(gpsi, [FAULT_CUSTOMER], LEDGER_READ)).reverse(); // newest first in the store
    // a ledger read to its limit may miss older entries: reported as such, not as commands lost
    if (entries.length >= LEDGER_READ) throw new Error(`the ledger of ${gpsi} holds ${LEDGER_READ} entries or more: run with more subscriptions (or fewer seconds)`);
    const byOperation = new Map<string, { id: string; operation: string; changes: { subBalanceInstId: string; delta: number }[] }>();
    for (const entry of entries) {
      // one stored entry (one operation) per command: its changes share the entry's time and id
      const key = `${entry.at}|${entry.correlationId}|${entry.operation}`;
      const operation = byOperation.get(key) ?? { id: entry.correlationId, operation: entry.operation, changes: [] };
      operation.changes.push({ subBalanceInstId: entry.subBalanceInstId, delta: (entry.after?.remaining ?? 0) - (entry.before?.remaining ?? 0) });
      byOperation.set(key, operation);
    }
    [...byOperation.values()].forEach(({ id, operation, changes }, position) => {
      if (!ours.has(id)) return;
      if (operation === 'TransferReversal') history.push({ kind: 'reversed', id, gpsi, changes });
      else if (numberOf.get(id) !== gpsi) history.push({ kind: 'credited', id, gpsi, changes });
      else history.push({ kind: 'applied', id, gpsi, position, operation, changes });
    });
    const { balances: now } = await balances.queryBalances(gpsi, [FAULT_CUSTOMER]);
    for (const start of starts.filter((s) => s.gpsi === gpsi)) {
      const balance = now.find((b) => b.subBalanceInstId === start.subBalanceInstId);
      history.push({ kind: 'balance', gpsi, subBalanceInstId: start.subBalanceInstId, start: start.start, remaining: balance?.remaining ?? Number.NaN, reserved: balance?.reserved ?? 0 });
    }
  }
  for (const topic of commandTopics(config)) for (const o of await partitionOffsets(brokers, config.groupId, topic)) history.push({ kind: 'offset', ...o });
}

/**
 * Waits until no sub-balance of the run holds a reservation any more (the last ones end by expiry, a
 * scheduler poll after their time) and every expiry's event has gone out (the subscription's reservation
 * outbox empty: the scheduler takes an entry out once its event is published), at most `timeoutMs`: what is
 * still held then is the checker's.
 */
export async function reservationsEnded(balances: BalanceComponents['balances'], redis: RedisClient, keyPrefix: string, starts: StartingBalance[], timeoutMs: number): Promise<number> {
  const began = Date.now();
  const numbers = [...new Set(starts.map((s) => s.gpsi))];
  const held = async () => {
    const [reserved, unpublished] = await Promise.all([
      Promise.all(numbers.map(async (gpsi) => (await balances.queryBalances(gpsi, [FAULT_CUSTOMER])).balances.some((b) => (b.reserved ?? 0) > 0))),
      Promise.all(numbers.map((gpsi) => redis.llen(subscriberKeys(keyPrefix, gpsi).reservationOutbox))),
    ]);
    return reserved.some(Boolean) || unpublished.some((n) => n > 0);
  };
  let failure: unknown;
  const stillHeld = () =>
    held().catch((error: unknown) => {
      failure = error;
      return true;
    });
  while ((await stillHeld()) && Date.now() - began < timeoutMs) await new Promise((resolve) => setTimeout(resolve, 500));
  if (failure !== undefined) process.stderr.write(`nemesis: reading the reservations failed, last: ${(failure as Error)?.message ?? JSON.stringify(failure)}\n`);
  return Date.now() - began;
}

/**
 * Adds each port's end to the history: its status in the port-in store, the activations its ledger applied
 * (where an activation happens, whatever ids its event carries) and its event records as the rig's reader
 * (kafkajs, read_committed) got them, copies included.
 */
export async function recordPortStates(workload: PortWorkload, history: History): Promise<void> {
  const { rig } = workload;
  for (const { gpsi } of workload.ports) {
    history.push({
      kind: 'port-state',
      gpsi,
      status: await rig.portStatus(gpsi),
      activationsApplied: await rig.activationsApplied(gpsi),
      statusEvents: rig.portEvents(gpsi).map((e) => ({ ceId: e.headers.ce_id, status: String(e.value.portStatus) })),
      activationEvents: rig.activationEvents(gpsi).map((e) => e.headers.ce_id),
    });
  }
}

/**
 * Where the replies the checker misses are, read again by kafkajs (another client than the history's reader):
 * among its read_committed records (the history's reader missed them), among the records of aborted or open
 * transactions only (the service wrote them in transactions that did not commit), or nowhere.
 */
export async function locateMissingReplies(config: ServiceConfig, missing: string[]): Promise<{ missing: number; committed: number; uncommittedOnly: number; nowhere: number }> {
  const topic = faultPartnerTopics(config).balanceReplies;
  const ids = async (readUncommitted: boolean) =>
    new Set((await drainTopic(config.kafka.brokers, topic, 60_000, undefined, readUncommitted)).map((record) => headerString(record, HEADER.correlationId)));
  const [committed, all] = [await ids(false), await ids(true)];
  const found = (set: Set<string | undefined>) => missing.filter((id) => set.has(id)).length;
  return {
    missing: missing.length,
    committed: found(committed),
    uncommittedOnly: missing.filter((id) => all.has(id) && !committed.has(id)).length,
    nowhere: missing.filter((id) => !all.has(id)).length,
  };
}
