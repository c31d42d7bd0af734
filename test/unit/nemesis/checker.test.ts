import { checkHistory, formatViolation, violationCounts } from '../../nemesis/support/checker';
import type { History, HistoryEvent } from '../../nemesis/support/history';

// A clean history of three commands on one number (Add 1 000 each to one sub-balance), then each planted
// defect the brief names: an output sent twice, a change applied twice, a reply overwritten, an aborted
// record applied — and the others the checker looks for.

const GPSI = '4670000001';
const SB = 'sb-1';
const TOPIC = 'balance.commands';

/** One command sent, on the topic at `offset`, answered, its event published, applied at `position` of the ledger. */
const command = (id: string, offset: number, position: number): HistoryEvent[] => [
  { kind: 'send', at: offset, id, gpsi: GPSI, channel: 'idempotent', outcome: 'committed', acknowledged: { topic: TOPIC, partition: 0, offset } },
  { kind: 'command', id, gpsi: GPSI, topic: TOPIC, partition: 0, offset },
  { kind: 'reply', id, status: 'Success', channel: 'kafka', offset },
  { kind: 'event', id, ceId: `ce-${id}`, offset },
  { kind: 'applied', id, gpsi: GPSI, position, changes: [{ subBalanceInstId: SB, delta: 1000 }] },
];

const clean = (): History => [
  ...command('a', 0, 0),
  ...command('b', 1, 1),
  ...command('c', 2, 2),
  { kind: 'balance', gpsi: GPSI, subBalanceInstId: SB, start: 5000, remaining: 8000 },
  { kind: 'offset', topic: TOPIC, partition: 0, committed: 3, end: 3 },
];

const kinds = (history: History) => violationCounts(checkHistory(history));

describe('history checker', () => {
  it('finds nothing wrong in a clean history', () => {
    expect(checkHistory(clean())).toEqual([]);
  });

  it('an output sent twice: a second reply record read read_committed', () => {
    const history = [...clean(), { kind: 'reply', id: 'b', status: 'Success', channel: 'kafka', offset: 9 } satisfies HistoryEvent];
    const [violation] = checkHistory(history);
    expect(violation).toMatchObject({ kind: 'output-twice', subject: 'b', detail: '2 reply records for 1 command record(s)' });
    // the smallest slice: b's send, its command record and both replies, nothing of a or c
    expect(violation.slice.map((e) => e.kind)).toEqual(['send', 'command', 'reply', 'reply']);
    expect(violation.slice.every((e) => 'id' in e && e.id === 'b')).toBe(true);
  });

  it('an output sent twice: a second event record', () => {
    expect(kinds([...clean(), { kind: 'event', id: 'c', ceId: 'ce-c', offset: 9 }])).toEqual({ 'output-twice': 1 });
  });

  it('a change applied twice: a second ledger entry, and the balance off by as much', () => {
    const history = [...clean(), { kind: 'applied', id: 'a', gpsi: GPSI, position: 3, changes: [{ subBalanceInstId: SB, delta: 1000 }] } satisfies HistoryEvent];
    const violations = checkHistory(history);
    expect(violationCounts(violations)).toEqual({ 'applied-twice': 1, 'balance-off': 1 });
    expect(violations.find((v) => v.kind === 'balance-off')!.detail).toBe('start 5000 + ledger 4000 = 9000, remaining 8000');
  });

  it('a reply overwritten: Success, then a refusal for the same id', () => {
    const history = [
      ...clean(),
      { kind: 'reply', id: 'a', status: 'Success', channel: 'http' } satisfies HistoryEvent,
      { kind: 'reply', id: 'a', status: 'CONFLICT', channel: 'http' } satisfies HistoryEvent,
    ];
    const [violation] = checkHistory(history);
    expect(violation).toMatchObject({ kind: 'reply-inconsistent', subject: 'a', detail: 'answered Success and CONFLICT' });
    expect(violation.slice.filter((e) => e.kind === 'reply')).toHaveLength(3);
  });

  it('an aborted record applied: a command sent only in an aborted transaction, in the ledger', () => {
    const aborted: History = [
      { kind: 'send', at: 5, id: 'x', gpsi: GPSI, channel: 'transactional', outcome: 'aborted' },
      { kind: 'applied', id: 'x', gpsi: GPSI, position: 3, changes: [{ subBalanceInstId: SB, delta: 1000 }] },
    ];
    const history = [...clean().filter((e) => e.kind !== 'balance'), ...aborted, { kind: 'balance', gpsi: GPSI, subBalanceInstId: SB, start: 5000, remaining: 9000 } satisfies HistoryEvent];
    const violations = checkHistory(history);
    expect(violationCounts(violations)).toEqual({ 'aborted-applied': 1 });
    expect(violations[0].slice).toEqual(aborted);
  });

  it('an aborted command left alone is no violation', () => {
    expect(checkHistory([...clean(), { kind: 'send', at: 5, id: 'x', gpsi: GPSI, channel: 'transactional', outcome: 'aborted' }])).toEqual([]);
  });

  it('a command lost: its record on the topic, nothing applied, no reply', () => {
    const history = clean().filter((e) => !('id' in e && e.id === 'c' && (e.kind === 'applied' || e.kind === 'reply' || e.kind === 'event')));
    expect(kinds(history)).toEqual({ lost: 1, 'reply-missing': 1, 'balance-off': 1 });
  });

  it('an acknowledged send with no record where Kafka put it: the record read at that offset is not it', () => {
    // c's record gone (Kafka or its client lost it): the service never saw it, yet the partner was told it was written
    const history = clean()
      .filter((e) => !('id' in e && e.id === 'c' && e.kind !== 'send'))
      .map((e) => (e.kind === 'balance' ? { ...e, remaining: 7000 } : e.kind === 'offset' ? { ...e, committed: 2, end: 2 } : e));
    const violations = checkHistory(history);
    expect(violationCounts(violations)).toEqual({ 'acknowledged-missing': 1, lost: 1 });
    expect(violations[0].detail).toBe('acknowledged at balance.commands:0@2, no record of it there');
  });

  it('a partition held by an open transaction: the sends acknowledged behind it are reported once, as held, not lost', () => {
    // a partner's transaction opened at offset 2 and never ended: c (offset 2) and d (offset 3) are unreadable
    const unreadable = clean().filter((e) => !('id' in e && e.id === 'c' && e.kind !== 'send'));
    const history: History = [
      ...unreadable.map((e) => (e.kind === 'balance' ? { ...e, remaining: 7000 } : e.kind === 'offset' ? { ...e, committed: 2, end: 5 } : e)),
      { kind: 'send', at: 4, id: 'd', gpsi: GPSI, channel: 'idempotent', outcome: 'committed', acknowledged: { topic: TOPIC, partition: 0, offset: 3 } },
      { kind: 'held', topic: TOPIC, partition: 0, stable: 2, end: 5 },
    ];
    const violations = checkHistory(history);
    expect(violationCounts(violations)).toEqual({ 'partition-held': 1 });
    expect(violations[0]).toMatchObject({ subject: `${TOPIC}:0`, detail: 'last stable offset 2, end 5: 2 acknowledged send(s) unreadable behind an open transaction' });
    expect(violations[0].slice.map((e) => ('id' in e ? e.id : e.kind))).toEqual(['held', 'c', 'd']);
  });

  describe('webhooks, when the run watched the endpoint', () => {
    const delivered = (ceId: string, arrivedAt: number, status = 204): HistoryEvent => ({ kind: 'webhook', ceId, arrivedAt, status });
    const watched = (...webhooks: HistoryEvent[]): History => [...clean(), { kind: 'webhooks', url: 'https://127.0.0.1/webhooks' }, ...webhooks];

    it('every event accepted once, in order, a failed attempt retried: nothing wrong', () => {
      expect(checkHistory(watched(delivered('ce-a', 1, 503), delivered('ce-a', 2), delivered('ce-b', 3), delivered('ce-c', 4)))).toEqual([]);
    });

    it('an event never accepted (its only delivery refused) is missing', () => {
      const violations = checkHistory(watched(delivered('ce-a', 1), delivered('ce-b', 2, 500), delivered('ce-c', 3)));
      expect(violationCounts(violations)).toEqual({ 'webhook-missing': 1 });
      expect(violations[0]).toMatchObject({ subject: 'b', detail: 'event ce-b never accepted by the endpoint' });
    });

    it("a number's events first delivered out of their order", () => {
      const [violation] = checkHistory(watched(delivered('ce-a', 1), delivered('ce-c', 2), delivered('ce-b', 3)));
      expect(violation).toMatchObject({ kind: 'webhook-out-of-order', subject: GPSI, detail: 'event ce-b is before ce-c on the topic; the endpoint first got them the other way round' });
    });
  });

  it('a worker that did not stop within the grace after SIGTERM', () => {
    const [violation] = checkHistory([...clean(), { kind: 'stop-overdue', at: 5, worker: '0 (pid 42)', graceMs: 30_000 }]);
    expect(violation).toMatchObject({ kind: 'shutdown-overdue', subject: '0 (pid 42)', detail: 'not stopped 30 s after SIGTERM' });
  });

  it('a worker that failed to start, with the faults it started under; a fault not undone', () => {
    const history: HistoryEvent[] = [
      ...clean(),
      { kind: 'fault', at: 10, fault: 'broker-kill #0', phase: 'begin' },
      { kind: 'fault', at: 11, fault: 'rolling-restart #0', phase: 'begin' },
      { kind: 'fault', at: 12, fault: 'kafka-delay #1', phase: 'begin' },
      { kind: 'fault', at: 13, fault: 'kafka-delay #1', phase: 'end' },
      { kind: 'start-failed', at: 14, worker: 'slot 1, attempt 1', reason: 'worker failed to start: Listing topics failed' },
      { kind: 'fault', at: 20, fault: 'rolling-restart #0', phase: 'failed', error: 'no "worker started"' },
    ];
    const violations = checkHistory(history);
    expect(violations.map((v) => v.kind)).toEqual(['start-failed', 'fault-failed']);
    expect(violations[0]).toMatchObject({ subject: 'slot 1, attempt 1', detail: 'worker failed to start: Listing topics failed' });
    expect(violations[0].slice.map((e) => (e.kind === 'fault' ? e.fault : e.kind))).toEqual(['start-failed', 'broker-kill #0', 'rolling-restart #0']);
    expect(violations[1]).toMatchObject({ subject: 'rolling-restart #0', detail: 'no "worker started"' });
  });

  it('a Success without its event', () => {
    expect(kinds(clean().filter((e) => !(e.kind === 'event' && e.id === 'a')))).toEqual({ 'event-missing': 1 });
  });

  it("a number's changes applied out of the topic's order: the two commands that swapped", () => {
    const history = clean().map((e) => (e.kind === 'applied' && e.id !== 'a' ? { ...e, position: e.id === 'b' ? 2 : 1 } : e));
    const [violation] = checkHistory(history);
    expect(violation).toMatchObject({ kind: 'out-of-order', subject: GPSI, detail: 'balance.commands has b before c; the ledger the other way round' });
    expect(violation.slice.map((e) => `${e.kind}:${'id' in e ? e.id : ''}`)).toEqual(['command:b', 'applied:b', 'command:c', 'applied:c']);
  });

  it("commands of one number on two topics: the ledger keeps each topic's order, not one between them", () => {
    const otherTopic = (id: string, offset: number, position: number) =>
      command(id, offset, position).map((e) =>
        e.kind === 'command' ? { ...e, topic: 'partner.balance.commands' } : e.kind === 'send' ? { ...e, acknowledged: { topic: 'partner.balance.commands', partition: 0, offset } } : e,
      );
    const history: History = [
      ...command('a', 0, 1),
      ...otherTopic('p', 0, 0),
      ...command('b', 1, 3),
      ...otherTopic('q', 1, 2),
      { kind: 'balance', gpsi: GPSI, subBalanceInstId: SB, start: 5000, remaining: 9000 },
    ];
    expect(checkHistory(history)).toEqual([]);
    const swapped = history.map((e) => (e.kind === 'applied' && e.id === 'q' ? { ...e, position: -1 } : e));
    expect(checkHistory(swapped)[0]).toMatchObject({ kind: 'out-of-order', detail: 'partner.balance.commands has p before q; the ledger the other way round' });
  });

  it('a retried HTTP send written twice is answered per record, not a violation', () => {
    const retried: History = [
      ...clean(),
      { kind: 'retry', at: 3, id: 'c', channel: 'http', why: 'timeout' },
      { kind: 'command', id: 'c', gpsi: GPSI, topic: TOPIC, partition: 0, offset: 3 },
      { kind: 'reply', id: 'c', status: 'Success', channel: 'kafka', offset: 3 },
      { kind: 'event', id: 'c', ceId: 'ce-c', offset: 3 },
      { kind: 'reply', id: 'c', status: 'Success', channel: 'http' },
    ];
    const history = retried.map((e) => (e.kind === 'offset' ? { ...e, committed: 4, end: 4 } : e));
    expect(checkHistory(history)).toEqual([]);
  });

  it('offsets left uncommitted: a command record at the committed offset; an end beyond it (a transaction marker) is none', () => {
    expect(kinds(clean().map((e) => (e.kind === 'offset' ? { ...e, committed: 2 } : e)))).toEqual({ 'offsets-behind': 1 });
    expect(kinds(clean().map((e) => (e.kind === 'offset' ? { ...e, end: 4 } : e)))).toEqual({});
  });

  describe('port-ins', () => {
    const PORT = '10000000021';
    /** A CreatePortIn sent, answered Success, the port completed once: status events OPEN, CONFIRMED, COMPLETED and one activation. */
    const completedPort = (): History => [
      ...clean(),
      { kind: 'port-send', at: 1, id: 'p', gpsi: PORT, outcome: 'committed', faulty: true },
      { kind: 'port-reply', id: 'p', gpsi: PORT, status: 'Success' },
      {
        kind: 'port-state',
        gpsi: PORT,
        status: 'COMPLETED',
        activationsApplied: 1,
        statusEvents: [
          { ceId: 'e1', status: 'OPEN' },
          { ceId: 'e2', status: 'CONFIRMED' },
          { ceId: 'e3', status: 'COMPLETED' },
        ],
        activationEvents: ['a1'],
      },
      { kind: 'np-side', received: 4, delivered: 10, duplicated: 5, reordered: 3, drained: true },
    ];
    const withState = (change: Partial<Extract<HistoryEvent, { kind: 'port-state' }>>): History => completedPort().map((e) => (e.kind === 'port-state' ? { ...e, ...change } : e));

    it('a port answered Success and completed once, a rejected one, a refused one left as it is: nothing wrong', () => {
      const rejected: History = [
        { kind: 'port-send', at: 2, id: 'r', gpsi: '10000000013', outcome: 'committed', faulty: false },
        { kind: 'port-reply', id: 'r', gpsi: '10000000013', status: 'Success' },
        { kind: 'port-state', gpsi: '10000000013', status: 'REJECTED', activationsApplied: 0, statusEvents: [{ ceId: 'e4', status: 'REJECTED' }], activationEvents: [] },
        { kind: 'port-send', at: 3, id: 'x', gpsi: '10000000014', outcome: 'committed', faulty: false },
        { kind: 'port-reply', id: 'x', gpsi: '10000000014', status: 'CONFLICT' },
        { kind: 'port-state', gpsi: '10000000014', status: 'OPEN', activationsApplied: 0, statusEvents: [], activationEvents: [] },
      ];
      expect(checkHistory([...completedPort(), ...rejected])).toEqual([]);
    });

    it('a port answered Success left CONFIRMED once the NP side is done is unfinished', () => {
      const [violation] = checkHistory(withState({ status: 'CONFIRMED', activationsApplied: 0, activationEvents: [], statusEvents: [{ ceId: 'e2', status: 'CONFIRMED' }] }));
      expect(violation).toMatchObject({ kind: 'port-unfinished', subject: PORT, detail: 'answered Success, CONFIRMED at the end' });
      expect(violation.slice.map((e) => e.kind)).toEqual(['port-send', 'port-reply', 'port-state']);
    });

    it('a port answered Success whose end state was never read is unfinished', () => {
      expect(kinds(completedPort().filter((e) => e.kind !== 'port-state'))).toEqual({ 'port-unfinished': 1 });
    });

    it('a port activated twice: a second activation in its ledger (a duplicated ActivationComplete applied again)', () => {
      const [violation] = checkHistory(withState({ activationsApplied: 2 }));
      expect(violation).toMatchObject({ kind: 'port-activated-twice', subject: PORT, detail: 'activations in the ledger 2, SubscriptionActivated ids 1, COMPLETED event ids 1' });
    });

    it("copies of a port's events under the same ids (a repeated NP response replaying its outcome) are no violation", () => {
      const copies = completedPort().map((e): HistoryEvent =>
        e.kind === 'port-state' ? { ...e, statusEvents: [...e.statusEvents, ...e.statusEvents.slice(1)], activationEvents: ['a1', 'a1', 'a1'] } : e,
      );
      expect(checkHistory(copies)).toEqual([]);
    });

    it('a port activated twice: a second SubscriptionActivated id, or a second COMPLETED PortInActivationEvent', () => {
      expect(kinds(withState({ activationEvents: ['a1', 'a2'] }))).toEqual({ 'port-activated-twice': 1 });
      const completedTwice = completedPort().map((e): HistoryEvent => (e.kind === 'port-state' ? { ...e, statusEvents: [...e.statusEvents, { ceId: 'e5', status: 'COMPLETED' }] } : e));
      expect(kinds(completedTwice)).toEqual({ 'port-activated-twice': 1 });
    });

    it('a CreatePortIn acknowledged and never answered; one whose sends all failed is none', () => {
      expect(kinds(completedPort().filter((e) => e.kind !== 'port-reply'))).toEqual({ 'port-unanswered': 1 });
      const unsent = completedPort()
        .filter((e) => e.kind !== 'port-reply')
        .map((e) => (e.kind === 'port-send' ? { ...e, outcome: 'unknown' as const } : e));
      expect(checkHistory(unsent)).toEqual([]);
    });
  });

  describe('transfers', () => {
    const TO = '4670000002';
    const TO_SB = 'sb-2';
    /** The clean history and a transfer of 1 000 from sb-1 to another number's sb-2, its debit applied (not yet settled). */
    const transfer = (): History => [
      ...clean().filter((e) => e.kind !== 'balance' && e.kind !== 'offset'),
      ...command('t', 3, 3).map((e) => (e.kind === 'applied' ? { ...e, operation: 'TransferBalance', changes: [{ subBalanceInstId: SB, delta: -1000 }] } : e)),
      { kind: 'offset', topic: TOPIC, partition: 0, committed: 4, end: 4 },
    ];
    const balances = (from: number, to: number): HistoryEvent[] => [
      { kind: 'balance', gpsi: GPSI, subBalanceInstId: SB, start: 5000, remaining: from },
      { kind: 'balance', gpsi: TO, subBalanceInstId: TO_SB, start: 0, remaining: to },
    ];
    const credit: HistoryEvent = { kind: 'credited', id: 't', gpsi: TO, changes: [{ subBalanceInstId: TO_SB, delta: 1000 }] };
    const reversal: HistoryEvent = { kind: 'reversed', id: 't', gpsi: GPSI, changes: [{ subBalanceInstId: SB, delta: 1000 }] };

    it('credited once, or reversed once: nothing wrong, both balances at their ledgers', () => {
      expect(checkHistory([...transfer(), credit, ...balances(7000, 1000)])).toEqual([]);
      expect(checkHistory([...transfer(), reversal, ...balances(8000, 0)])).toEqual([]);
    });

    it('debited and given to nobody: neither credited nor reversed', () => {
      expect(checkHistory([...transfer(), ...balances(7000, 0)]).map((v) => [v.kind, v.detail])).toEqual([['transfer-unsettled', 'debited 1, credited 0, reversed 0']]);
    });

    it('credited twice, or credited and reversed: the money counted twice', () => {
      const twice = { ...credit, changes: [{ subBalanceInstId: TO_SB, delta: 1000 }] };
      expect(kinds([...transfer(), credit, twice, ...balances(7000, 2000)])).toEqual({ 'transfer-unsettled': 1 });
      expect(kinds([...transfer(), credit, reversal, ...balances(8000, 1000)])).toEqual({ 'transfer-unsettled': 1 });
    });

    it('a credit the ledgers hold and the balance does not: balance-off on the number credited', () => {
      expect(kinds([...transfer(), credit, ...balances(7000, 0)])).toEqual({ 'balance-off': 1 });
    });
  });

  describe('reservations', () => {
    const TTL = 10_000;
    /**
     * A reservation of the charging partner sent at 1 000, answered `reserveStatus` at 1 200 naming its end
     * `expiresAtMs` (handled at 1 100: 11 100), its reserve writing no ledger entry.
     */
    const reservation = (reserveStatus = 'Success', expiresAtMs = 11_100): History => [
      { kind: 'reservation', reservationId: 'r1', reserveId: 'rs', gpsi: GPSI, subBalanceInstId: SB, sentAt: 1000, ttlMs: TTL, end: 'commit' },
      { kind: 'send', at: 1000, id: 'rs', gpsi: GPSI, channel: 'charging', outcome: 'committed' },
      { kind: 'command', id: 'rs', gpsi: GPSI, topic: TOPIC, partition: 0, offset: 3 },
      { kind: 'reply', id: 'rs', status: reserveStatus, channel: 'kafka', offset: 3 },
      ...(reserveStatus === 'Success' ? [{ kind: 'event', id: 'rs', ceId: 'ce-rs', offset: 3 } satisfies HistoryEvent] : []),
      { kind: 'answer', id: 'rs', status: reserveStatus, at: 1200, expiresAt: new Date(expiresAtMs).toISOString() },
    ];
    /** Its CommitReservation sent at `sentAt`, answered `status` at `answeredAt`; a Success charges 1 000 (the ledger's Subtract). */
    const commit = (status: string, sentAt: number, answeredAt: number): History => [
      { kind: 'settle', id: 'cm', reservationId: 'r1', operation: 'CommitReservation', sentAt },
      { kind: 'send', at: sentAt, id: 'cm', gpsi: GPSI, channel: 'charging', outcome: 'committed' },
      { kind: 'command', id: 'cm', gpsi: GPSI, topic: TOPIC, partition: 0, offset: 4 },
      { kind: 'reply', id: 'cm', status, channel: 'kafka', offset: 4 },
      { kind: 'answer', id: 'cm', status, at: answeredAt },
      ...(status === 'Success'
        ? [
            { kind: 'event', id: 'cm', ceId: 'ce-cm', offset: 4 } satisfies HistoryEvent,
            { kind: 'applied', id: 'cm', gpsi: GPSI, position: 3, operation: 'CommitReservation', changes: [{ subBalanceInstId: SB, delta: -1000 }] } satisfies HistoryEvent,
          ]
        : []),
    ];
    const expiry: HistoryEvent = { kind: 'expired', reservationId: 'r1', ceId: 'ce-expiry-r1' };
    const seenAt = (at: number): HistoryEvent => ({ kind: 'expiry-seen', reservationId: 'r1', at });
    /** The clean history's end, with a balance of `remaining`, `reserved` still held, and the offsets past the reservation's commands. */
    const end = (remaining: number, reserved = 0): History => [
      ...clean().filter((e) => e.kind !== 'balance' && e.kind !== 'offset'),
      { kind: 'balance', gpsi: GPSI, subBalanceInstId: SB, start: 5000, remaining, reserved },
      { kind: 'offset', topic: TOPIC, partition: 0, committed: 5, end: 5 },
    ];

    it('ended once each way is no violation: committed; expired, its late commit refused after its time', () => {
      expect(checkHistory([...end(7000), ...reservation(), ...commit('Success', 3000, 3100)])).toEqual([]);
      expect(checkHistory([...end(8000), ...reservation(), expiry, ...commit('NOT_FOUND', 11_500, 11_600)])).toEqual([]);
      expect(checkHistory([...end(8000), ...reservation(), expiry, seenAt(11_400)])).toEqual([]);
    });

    it('committed and expired both: ended twice', () => {
      const violations = checkHistory([...end(7000), ...reservation(), ...commit('Success', 3000, 3100), expiry]);
      expect(violationCounts(violations)).toEqual({ 'reservation-unsettled': 1 });
      expect(violations[0].detail).toBe('answered Success; committed or released 1, expired 1');
      expect(violations[0].slice).toContainEqual(expiry);
    });

    it('answered Success and never ended; refused and expired all the same', () => {
      expect(violationCounts(checkHistory([...end(8000), ...reservation()]))).toEqual({ 'reservation-unsettled': 1 });
      expect(checkHistory([...end(8000), ...reservation('BAD_REQUEST'), expiry])[0].detail).toBe('not answered Success; committed or released 0, expired 1');
    });

    it('gone before its time: a commit answered NOT_FOUND 5 s after the reserve was sent with 10 s to live', () => {
      const violations = checkHistory([...end(8000), ...reservation(), expiry, ...commit('NOT_FOUND', 5000, 6000)]);
      expect(violationCounts(violations)).toEqual({ 'reservation-expired-early': 1 });
      expect(violations[0].detail).toBe('answered NOT_FOUND 5000 ms before its time to live ended');
    });

    it('expired before the end it was answered with: its event arrived at 5 000, its end 11 100', () => {
      const violations = checkHistory([...end(8000), ...reservation(), expiry, seenAt(5000)]);
      expect(violationCounts(violations)).toEqual({ 'reservation-expired-early': 1 });
      expect(violations[0].detail).toBe('its expiry event arrived 6100 ms before the end it was answered with');
      expect(violations[0].slice).toContainEqual(seenAt(5000));
    });

    it('misdated: an end before its time to live from the send (a clock behind), or after it from the answer (a clock ahead)', () => {
      const behind = checkHistory([...end(8000), ...reservation('Success', 11_000 - 60_000), expiry]);
      expect(violationCounts(behind)).toEqual({ 'reservation-misdated': 1 });
      expect(behind[0].detail).toBe(`answered to end at ${new Date(-49_000).toISOString()}, 60000 ms before its time to live from when it was sent`);
      const ahead = checkHistory([...end(8000), ...reservation('Success', 11_200 + 92_000), expiry]);
      expect(ahead[0].detail).toMatch(/, 92000 ms after its time to live from when it was answered$/);
    });

    it('units still reserved at the end', () => {
      expect(violationCounts(checkHistory([...end(7000, 2000), ...reservation(), ...commit('Success', 3000, 3100)]))).toEqual({ 'reservation-held': 1 });
    });
  });

  it('prints a violation with its slice, one event a line', () => {
    const [violation] = checkHistory([...clean(), { kind: 'event', id: 'c', ceId: 'ce-c', offset: 9 }]);
    expect(formatViolation(violation).split('\n')).toEqual([
      'output-twice c: 2 event records for 1 command record(s)',
      '  {"kind":"send","at":2,"id":"c","gpsi":"4670000001","channel":"idempotent","outcome":"committed","acknowledged":{"topic":"balance.commands","partition":0,"offset":2}}',
      '  {"kind":"command","id":"c","gpsi":"4670000001","topic":"balance.commands","partition":0,"offset":2}',
      '  {"kind":"event","id":"c","ceId":"ce-c","offset":2}',
      '  {"kind":"event","id":"c","ceId":"ce-c","offset":9}',
    ]);
  });
});
