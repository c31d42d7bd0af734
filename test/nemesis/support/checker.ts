// The nemesis's checker: a history in (history.ts), the violations of the service's promises out, each with
// the smallest slice of the history that shows it. Pure: no I/O, unit-tested with planted defects.
import { ofKind, type History, type HistoryEvent } from './history';

export type ViolationKind =
  | 'lost' // a command whose send committed, not applied
  | 'acknowledged-missing' // Kafka acknowledged a send at an offset where read_committed shows no record of it
  | 'partition-held' // a command partition still held by an open transaction at the end: what follows is unreadable
  | 'applied-twice' // a command applied more than once
  | 'aborted-applied' // a command whose only send was aborted, applied or answered
  | 'reply-missing' // a command record without its reply
  | 'output-twice' // more reply or event records than command records, read read_committed
  | 'event-missing' // a command answered Success without its event
  | 'reply-inconsistent' // one correlation id answered two ways
  | 'balance-off' // a sub-balance not at its start plus its ledger's changes
  | 'out-of-order' // a number's changes not in the order of its command records
  | 'offsets-behind' // a command record at or after the worker group's committed offset
  | 'webhook-missing' // an event record never accepted by the partner's webhook endpoint
  | 'webhook-out-of-order' // a number's events first reaching the endpoint in another order than their records'
  | 'shutdown-overdue' // a worker told to stop (SIGTERM) still running after the grace
  | 'start-failed' // a worker that exited before it had started (the nemesis starts it again)
  | 'fault-failed' // a fault the nemesis could not undo: the rest of the run is not what it says
  | 'port-unanswered' // a CreatePortIn Kafka acknowledged, never answered
  | 'port-unfinished' // a port whose CreatePortIn was answered Success, not in a final status at the end
  | 'port-activated-twice' // a port activated more than once: in its ledger, or under more than one SubscriptionActivated or COMPLETED event id
  | 'transfer-unsettled' // a transfer's debit not followed by exactly one credit or one reversal (money taken and given to nobody, or twice)
  | 'reservation-unsettled' // a reservation answered Success not ended exactly once (committed or released, or expired), or one refused that ended
  | 'reservation-misdated' // a reservation answered with an end outside [sent + its time to live, answered + its time to live]
  | 'reservation-expired-early' // a reservation expired before the end it was answered with, or gone (NOT_FOUND) before its time to live ran from when it was sent
  | 'reservation-held'; // a sub-balance still holding reserved units at the end, after every reservation's time

export interface Violation {
  kind: ViolationKind;
  /** The command id, sub-balance, number or partition it is about. */
  subject: string;
  detail: string;
  slice: HistoryEvent[];
}

/** The history indexed by command id (events of every kind that name one). */
function byId(history: History): Map<string, HistoryEvent[]> {
  const index = new Map<string, HistoryEvent[]>();
  for (const event of history) {
    if (!('id' in event)) continue;
    const list = index.get(event.id) ?? [];
    list.push(event);
    index.set(event.id, list);
  }
  return index;
}

const count = (events: HistoryEvent[], predicate: (e: HistoryEvent) => boolean) => events.filter(predicate).length;

/** Whether a record at this place is behind a partition's open transaction at the end (reported once, as `partition-held`). */
type Behind = (place: { topic: string; partition: number; offset: number }) => boolean;

/**
 * Each command's own checks: applied once, nothing of an aborted one, one reply and one event per record, one
 * answer. `ledgerless`: a command that writes no ledger entry (a reservation held or released) is not lost for
 * want of one; the reservation checks account for it.
 */
function commandViolations(id: string, events: HistoryEvent[], behind: Behind, ledgerless: boolean): Violation[] {
  const violations: Violation[] = [];
  const add = (kind: ViolationKind, detail: string, slice: (e: HistoryEvent) => boolean) =>
    violations.push({ kind, subject: id, detail, slice: events.filter((e) => e.kind === 'send' || e.kind === 'retry' || slice(e)) });
  const sends = events.filter((e): e is Extract<HistoryEvent, { kind: 'send' }> => e.kind === 'send');
  const records = count(events, (e) => e.kind === 'command');
  const committed = records > 0 || sends.some((e) => e.outcome === 'committed');
  const applied = count(events, (e) => e.kind === 'applied');
  const replies = events.filter((e): e is Extract<HistoryEvent, { kind: 'reply' }> => e.kind === 'reply');
  const kafkaReplies = replies.filter((r) => r.channel === 'kafka').length;
  const eventRecords = count(events, (e) => e.kind === 'event');
  const statuses = [...new Set(replies.map((r) => r.status))];
  const refused = statuses.length > 0 && !statuses.includes('Success');

  if (!committed) {
    if (sends.length > 0 && sends.every((e) => e.outcome === 'aborted') && (applied > 0 || replies.length > 0 || eventRecords > 0)) {
      add('aborted-applied', `sent only in aborted transactions, yet applied ${applied}, replies ${replies.length}, events ${eventRecords}`, (e) => e.kind !== 'command');
    }
    return violations;
  }
  const unreadable = sends.some((e) => e.acknowledged && behind(e.acknowledged));
  for (const send of sends) {
    const at = send.acknowledged;
    if (send.outcome !== 'committed' || !at || behind(at)) continue;
    const there = events.some((e) => e.kind === 'command' && e.topic === at.topic && e.partition === at.partition && e.offset === at.offset);
    if (!there) add('acknowledged-missing', `acknowledged at ${at.topic}:${at.partition}@${at.offset}, no record of it there`, (e) => e.kind === 'command');
  }
  if (applied === 0 && !refused && !ledgerless && !(records === 0 && unreadable))
    add('lost', `send committed (${records} command record(s)), applied 0`, (e) => e.kind === 'command' || e.kind === 'reply');
  if (applied > 1) add('applied-twice', `applied ${applied} times`, (e) => e.kind === 'applied' || e.kind === 'command');
  if (kafkaReplies > records) add('output-twice', `${kafkaReplies} reply records for ${records} command record(s)`, (e) => e.kind === 'reply' || e.kind === 'command');
  if (eventRecords > records) add('output-twice', `${eventRecords} event records for ${records} command record(s)`, (e) => e.kind === 'event' || e.kind === 'command');
  if (kafkaReplies < records) add('reply-missing', `${kafkaReplies} reply records for ${records} command record(s)`, (e) => e.kind === 'reply' || e.kind === 'command');
  if (statuses.includes('Success') && eventRecords < records)
    add('event-missing', `answered Success, ${eventRecords} event records for ${records} command record(s)`, (e) => e.kind === 'event' || e.kind === 'reply' || e.kind === 'command');
  if (statuses.length > 1) add('reply-inconsistent', `answered ${statuses.join(' and ')}`, (e) => e.kind === 'reply');
  return violations;
}

/** Every sub-balance at its start plus the changes its ledger holds. */
function balanceViolations(history: History): Violation[] {
  const applied = [...ofKind(history, 'applied'), ...ofKind(history, 'credited'), ...ofKind(history, 'reversed')];
  return ofKind(history, 'balance').flatMap((balance) => {
    const touching = applied.filter((a) => a.gpsi === balance.gpsi && a.changes.some((c) => c.subBalanceInstId === balance.subBalanceInstId));
    const sum = touching.reduce((total, a) => total + a.changes.filter((c) => c.subBalanceInstId === balance.subBalanceInstId).reduce((s, c) => s + c.delta, 0), 0);
    if (balance.start + sum === balance.remaining) return [];
    return [
      {
        kind: 'balance-off' as const,
        subject: balance.subBalanceInstId,
        detail: `start ${balance.start} + ledger ${sum} = ${balance.start + sum}, remaining ${balance.remaining}`,
        slice: [balance, ...touching],
      },
    ];
  });
}

/**
 * Each number's ledger applies its commands in the order of its command records (first record of each id),
 * topic by topic: between two command topics (the shared one, a partner's own) no order is promised.
 */
function orderViolations(history: History): Violation[] {
  const topicOrder = new Map<string, { gpsi: string; topic: string; ids: string[] }>();
  const topicOf = new Map<string, string>();
  const commands = ofKind(history, 'command').sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition || a.offset - b.offset);
  for (const c of commands) {
    if (topicOf.has(c.id)) continue;
    topicOf.set(c.id, c.topic);
    const key = `${c.topic}|${c.gpsi}`;
    const order = topicOrder.get(key) ?? { gpsi: c.gpsi, topic: c.topic, ids: [] };
    order.ids.push(c.id);
    topicOrder.set(key, order);
  }
  const ledgerOrder = new Map<string, string[]>();
  for (const a of ofKind(history, 'applied').sort((x, y) => x.position - y.position)) {
    const topic = topicOf.get(a.id);
    if (topic === undefined) continue;
    const key = `${topic}|${a.gpsi}`;
    const ids = ledgerOrder.get(key) ?? [];
    if (!ids.includes(a.id)) ids.push(a.id);
    ledgerOrder.set(key, ids);
  }
  const violations: Violation[] = [];
  for (const [key, ledger] of ledgerOrder) {
    const { gpsi, topic, ids } = topicOrder.get(key)!;
    // the topic's order of the commands that were applied (a lost one is reported as lost, not here)
    const inLedger = new Set(ledger);
    const expected = ids.filter((id) => inLedger.has(id));
    const at = expected.findIndex((id, i) => ledger[i] !== id);
    if (at === -1) continue;
    const pair = new Set([expected[at], ledger[at]]);
    violations.push({
      kind: 'out-of-order',
      subject: gpsi,
      detail: `${topic} has ${expected[at]} before ${ledger[at]}; the ledger the other way round`,
      slice: history.filter((e) => (e.kind === 'command' || e.kind === 'applied') && pair.has(e.id)),
    });
  }
  return violations;
}

/**
 * Each transfer all or nothing: its debit (on the number it transfers from) followed by exactly one credit (on
 * the number it transfers to) or one reversal (the amount given back), and no credit or reversal without a debit.
 */
function transferViolations(history: History): Violation[] {
  const debits = ofKind(history, 'applied').filter((a) => a.operation === 'TransferBalance');
  const credits = ofKind(history, 'credited');
  const reversals = ofKind(history, 'reversed');
  const ids = new Set([...debits, ...credits, ...reversals].map((e) => e.id));
  return [...ids].flatMap((id) => {
    const [debited, credited, reversed] = [debits, credits, reversals].map((list) => list.filter((e) => e.id === id).length);
    if (debited === 1 && credited + reversed === 1) return [];
    return [
      {
        kind: 'transfer-unsettled' as const,
        subject: id,
        detail: `debited ${debited}, credited ${credited}, reversed ${reversed}`,
        slice: history.filter((e) => 'id' in e && e.id === id && (e.kind === 'applied' || e.kind === 'credited' || e.kind === 'reversed' || e.kind === 'reply')),
      },
    ];
  });
}

/**
 * Each reservation ended once: one answered Success is committed or released (a Success of its settling
 * command) or expired (its ReservationExpired event ids), exactly one of these; one refused ends in none.
 * Dated by one clock, the test's (the service's clocks may be skewed, its answers must not be): its end no
 * earlier than its time to live from when it was sent, no later than from when it was answered. None gone
 * before its time: its expiry event arriving before the end it was answered with, or a settling command
 * answered NOT_FOUND before the time to live had run from when it was sent. Nothing still reserved at the end.
 */
function reservationViolations(history: History): Violation[] {
  const statuses = new Map<string, Set<string>>();
  for (const e of history) if (e.kind === 'reply' || e.kind === 'answer') statuses.set(e.id, (statuses.get(e.id) ?? new Set()).add(e.status));
  const succeeded = (id: string) => statuses.get(id)?.has('Success') === true;
  const settles = ofKind(history, 'settle');
  const expired = ofKind(history, 'expired');
  const answers = ofKind(history, 'answer');
  const seen = new Map(ofKind(history, 'expiry-seen').map((e) => [e.reservationId, e.at]));
  const violations: Violation[] = [];
  for (const r of ofKind(history, 'reservation')) {
    const own = settles.filter((s) => s.reservationId === r.reservationId);
    const ids = new Set([r.reserveId, ...own.map((s) => s.id)]);
    const slice = () =>
      history.filter((e) => e === r || ('id' in e && ids.has(e.id) && e.kind !== 'command') || ((e.kind === 'expired' || e.kind === 'expiry-seen') && e.reservationId === r.reservationId));
    const settled = own.filter((s) => succeeded(s.id)).length;
    const expiries = new Set(expired.filter((e) => e.reservationId === r.reservationId).map((e) => e.ceId)).size;
    const ends = succeeded(r.reserveId) ? 1 : 0;
    if (settled + expiries !== ends) {
      const held = ends === 1 ? 'answered Success' : 'not answered Success';
      violations.push({ kind: 'reservation-unsettled', subject: r.reservationId, detail: `${held}; committed or released ${settled}, expired ${expiries}`, slice: slice() });
    }
    const dueAt = r.sentAt + r.ttlMs;
    const reserved = answers.find((a) => a.id === r.reserveId && a.status === 'Success' && a.expiresAt !== undefined);
    const endsAt = reserved ? Date.parse(reserved.expiresAt!) : undefined;
    if (reserved && endsAt !== undefined && (endsAt < dueAt || endsAt > reserved.at + r.ttlMs)) {
      const off = endsAt < dueAt ? `${dueAt - endsAt} ms before its time to live from when it was sent` : `${endsAt - reserved.at - r.ttlMs} ms after its time to live from when it was answered`;
      violations.push({ kind: 'reservation-misdated', subject: r.reservationId, detail: `answered to end at ${reserved.expiresAt}, ${off}`, slice: slice() });
    }
    const seenAt = seen.get(r.reservationId);
    const goneEarly = answers.find((a) => a.status === 'NOT_FOUND' && a.at < dueAt && own.some((s) => s.id === a.id));
    if (endsAt !== undefined && seenAt !== undefined && seenAt < endsAt) {
      violations.push({
        kind: 'reservation-expired-early',
        subject: r.reservationId,
        detail: `its expiry event arrived ${endsAt - seenAt} ms before the end it was answered with`,
        slice: slice(),
      });
    } else if (goneEarly) {
      violations.push({ kind: 'reservation-expired-early', subject: r.reservationId, detail: `answered NOT_FOUND ${dueAt - goneEarly.at} ms before its time to live ended`, slice: slice() });
    }
  }
  for (const b of ofKind(history, 'balance').filter((x) => (x.reserved ?? 0) > 0)) {
    violations.push({ kind: 'reservation-held', subject: b.subBalanceInstId, detail: `${b.reserved} milli-units still reserved at the end`, slice: [b] });
  }
  return violations;
}

/** Each partition an open transaction still held at the end, with the acknowledged sends behind it. */
function heldViolations(history: History): Violation[] {
  const sends = ofKind(history, 'send');
  return ofKind(history, 'held').map((held) => {
    const behind = sends.filter((s) => s.acknowledged?.topic === held.topic && s.acknowledged.partition === held.partition && s.acknowledged.offset >= held.stable);
    return {
      kind: 'partition-held' as const,
      subject: `${held.topic}:${held.partition}`,
      detail: `last stable offset ${held.stable}, end ${held.end}: ${behind.length} acknowledged send(s) unreadable behind an open transaction`,
      slice: [held, ...behind],
    };
  });
}

/**
 * When the run watched the webhook endpoint: every event record accepted (2xx) at least once, and each
 * number's events first arriving in their records' order (the dispatcher holds a number's later events while
 * one is retried, so a first arrival out of order is a delivery out of order).
 */
function webhookViolations(history: History): Violation[] {
  if (ofKind(history, 'webhooks').length === 0) return [];
  const webhooks = ofKind(history, 'webhook');
  const accepted = new Set(webhooks.filter((w) => w.status >= 200 && w.status < 300).map((w) => w.ceId));
  const firstArrival = new Map<string, number>();
  for (const w of webhooks) firstArrival.set(w.ceId, Math.min(firstArrival.get(w.ceId) ?? Infinity, w.arrivedAt));
  const gpsiOf = new Map(ofKind(history, 'command').map((c) => [c.id, c.gpsi]));
  const events = ofKind(history, 'event');
  const violations: Violation[] = events
    .filter((e) => !accepted.has(e.ceId))
    .map((e) => ({ kind: 'webhook-missing' as const, subject: e.id, detail: `event ${e.ceId} never accepted by the endpoint`, slice: [e, ...webhooks.filter((w) => w.ceId === e.ceId)] }));
  const byNumber = new Map<string, Extract<HistoryEvent, { kind: 'event' }>[]>();
  for (const e of [...events].sort((a, b) => a.offset - b.offset)) {
    const gpsi = gpsiOf.get(e.id);
    if (gpsi === undefined || !firstArrival.has(e.ceId) || byNumber.get(gpsi)?.some((seen) => seen.ceId === e.ceId)) continue;
    byNumber.set(gpsi, [...(byNumber.get(gpsi) ?? []), e]);
  }
  for (const [gpsi, ofNumber] of byNumber) {
    const arrived = [...ofNumber].sort((a, b) => firstArrival.get(a.ceId)! - firstArrival.get(b.ceId)!);
    const at = ofNumber.findIndex((e, i) => arrived[i].ceId !== e.ceId);
    if (at === -1) continue;
    const pair = new Set([ofNumber[at].ceId, arrived[at].ceId]);
    violations.push({
      kind: 'webhook-out-of-order',
      subject: gpsi,
      detail: `event ${ofNumber[at].ceId} is before ${arrived[at].ceId} on the topic; the endpoint first got them the other way round`,
      slice: history.filter((e) => (e.kind === 'event' || e.kind === 'webhook') && pair.has(e.ceId)),
    });
  }
  return violations;
}

/** Every command record below its partition's committed offset (the end offset may be a transaction marker's, never handed out). */
function offsetViolations(history: History): Violation[] {
  const commands = ofKind(history, 'command');
  return ofKind(history, 'offset').flatMap((o) => {
    const beyond = commands.filter((c) => c.topic === o.topic && c.partition === o.partition && c.offset >= o.committed);
    if (beyond.length === 0) return [];
    return [
      { kind: 'offsets-behind' as const, subject: `${o.topic}:${o.partition}`, detail: `committed ${o.committed}, ${beyond.length} command record(s) at or after it`, slice: [o, ...beyond] },
    ];
  });
}

/** The statuses a port ends in (src/domain/portin/lifecycle.ts): nothing moves it from these but a new request. */
export const FINAL_PORT_STATUSES: readonly string[] = ['COMPLETED', 'REJECTED', 'CANCELLED'];

/**
 * Each CreatePortIn answered, each port answered Success in a final status at the end (the run waits for
 * the NP side first), and activated at most once — counted where it happens (the ledger) and by the event
 * ids announcing it, so a duplicated or stale NP response applied again shows either way.
 */
function portViolations(history: History): Violation[] {
  const sends = ofKind(history, 'port-send');
  const replies = ofKind(history, 'port-reply');
  const states = new Map(ofKind(history, 'port-state').map((s) => [s.gpsi, s]));
  const violations: Violation[] = [];
  const answered = new Set(replies.map((r) => r.id));
  for (const id of new Set(sends.filter((s) => s.outcome === 'committed' && !answered.has(s.id)).map((s) => s.id))) {
    const ofId = sends.filter((s) => s.id === id);
    violations.push({ kind: 'port-unanswered', subject: ofId[0].gpsi, detail: `CreatePortIn ${id} acknowledged, no reply`, slice: ofId });
  }
  for (const gpsi of new Set(replies.filter((r) => r.status === 'Success').map((r) => r.gpsi))) {
    const state = states.get(gpsi);
    if (state && FINAL_PORT_STATUSES.includes(state.status)) continue;
    violations.push({
      kind: 'port-unfinished',
      subject: gpsi,
      detail: state ? `answered Success, ${state.status || 'no status'} at the end` : 'answered Success, no end state read',
      slice: history.filter((e) => (e.kind === 'port-send' || e.kind === 'port-reply' || e.kind === 'port-state') && e.gpsi === gpsi),
    });
  }
  for (const state of states.values()) {
    // ids, not records: a repeated NP response replays its recorded outcome, its events again under the same ids
    const activations = new Set(state.activationEvents).size;
    const completed = new Set(state.statusEvents.filter((e) => e.status === 'COMPLETED').map((e) => e.ceId)).size;
    if (state.activationsApplied <= 1 && activations <= 1 && completed <= 1) continue;
    violations.push({
      kind: 'port-activated-twice',
      subject: state.gpsi,
      detail: `activations in the ledger ${state.activationsApplied}, SubscriptionActivated ids ${activations}, COMPLETED event ids ${completed}`,
      slice: [state],
    });
  }
  return violations;
}

/** Every violation of the history, commands first (in the order their ids first appear), then held partitions, balances, transfers, reservations, order, offsets, webhooks, ports. */
export function checkHistory(history: History): Violation[] {
  const held = ofKind(history, 'held');
  const behind: Behind = (place) => held.some((h) => h.topic === place.topic && h.partition === place.partition && place.offset >= h.stable);
  const ledgerless = new Set([...ofKind(history, 'reservation').map((r) => r.reserveId), ...ofKind(history, 'settle').flatMap((s) => (s.operation === 'ReleaseReservation' ? [s.id] : []))]);
  return [
    ...[...byId(history)].flatMap(([id, events]) => commandViolations(id, events, behind, ledgerless.has(id))),
    ...heldViolations(history),
    ...balanceViolations(history),
    ...transferViolations(history),
    ...reservationViolations(history),
    ...orderViolations(history),
    ...offsetViolations(history),
    ...webhookViolations(history),
    ...portViolations(history),
    ...ofKind(history, 'stop-overdue').map((e) => ({ kind: 'shutdown-overdue' as const, subject: e.worker, detail: `not stopped ${e.graceMs / 1000} s after SIGTERM`, slice: [e] })),
    ...ofKind(history, 'start-failed').map((e) => ({ kind: 'start-failed' as const, subject: e.worker, detail: e.reason, slice: [e, ...faultsAround(history, e.at)] })),
    ...ofKind(history, 'fault')
      .filter((e) => e.phase === 'failed')
      .map((e) => ({ kind: 'fault-failed' as const, subject: e.fault, detail: e.error ?? 'failed', slice: [e] })),
  ];
}

/** The faults under way at `at` (begun, not ended): what a failure then happened under. */
function faultsAround(history: History, at: number): HistoryEvent[] {
  const faults = ofKind(history, 'fault');
  return faults.filter((f) => f.phase === 'begin' && f.at <= at && !faults.some((g) => g.fault === f.fault && g.phase !== 'begin' && g.at >= f.at && g.at < at));
}

/** A violation as lines: what and about what, then its slice of the history, one event a line. */
export const formatViolation = (v: Violation): string => [`${v.kind} ${v.subject}: ${v.detail}`, ...v.slice.map((e) => `  ${JSON.stringify(e)}`)].join('\n');

/** How many violations of each kind. */
export function violationCounts(violations: Violation[]): Partial<Record<ViolationKind, number>> {
  const counts: Partial<Record<ViolationKind, number>> = {};
  for (const v of violations) counts[v.kind] = (counts[v.kind] ?? 0) + 1;
  return counts;
}
