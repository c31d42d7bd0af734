// What a nemesis run records, as plain data: every send, retry and abort of the partners, every command
// record on the topics, reply, event, ledger application, final balance and committed offset, and the
// faults with their times; and the port-ins sent, answered and their end states. The checker (checker.ts) reads only this.

/**
 * How a command was sent: a Kafka partner's idempotent or transactional producer, the HTTP partner through
 * the gateway, or the charging partner (Kafka, waiting for each reply: its reservations).
 */
export type Channel = 'idempotent' | 'transactional' | 'http' | 'charging';

/** How the charging partner ends a reservation: commits it, releases it, lets it expire, or commits it about when its time ends (racing the expiry). */
export type ReservationEnd = 'commit' | 'release' | 'expire' | 'late-commit';

/** Where Kafka said it wrote a record: the topic, partition and offset of its produce answer. */
export interface Acknowledged {
  topic: string;
  partition: number;
  offset: number;
}

export type HistoryEvent =
  /** A partner's send of a command: `committed` when Kafka acknowledged it (its transaction committed), `aborted` when its transaction was aborted, `unknown` when the send failed without telling. */
  | { kind: 'send'; at: number; id: string; gpsi: string; channel: Channel; outcome: 'committed' | 'aborted' | 'unknown'; acknowledged?: Acknowledged }
  /** The HTTP partner sending the same command again under the same X-Correlation-Id (a timeout or a 5xx). */
  | { kind: 'retry'; at: number; id: string; channel: Channel; why: string }
  /** A command record on a command topic, read read_committed. */
  | { kind: 'command'; id: string; gpsi: string; topic: string; partition: number; offset: number }
  /** A reply: a record on the partner's reply topic read read_committed, or an HTTP answer. */
  | { kind: 'reply'; id: string; status: string; channel: 'kafka' | 'http'; offset?: number }
  /** A billing event record for the command, read read_committed. */
  | { kind: 'event'; id: string; ceId: string; offset: number }
  /** One ledger entry of the command's own number (its position in the number's ledger, oldest first), its operation and changes; a transfer's debit is one. */
  | { kind: 'applied'; id: string; gpsi: string; position: number; operation?: string; changes: { subBalanceInstId: string; delta: number }[] }
  /** A transfer's credit: the ledger entry the command made on the number it transfers to. */
  | { kind: 'credited'; id: string; gpsi: string; changes: { subBalanceInstId: string; delta: number }[] }
  /** A transfer's reversal: the amount given back on the number it was taken from (the target refused it). */
  | { kind: 'reversed'; id: string; gpsi: string; changes: { subBalanceInstId: string; delta: number }[] }
  /** A sub-balance at the start and at the end of the run (milli-units), and what live reservations still held of it at the end. */
  | { kind: 'balance'; gpsi: string; subBalanceInstId: string; start: number; remaining: number; reserved?: number }
  /** The charging partner's ReserveBalance (`reserveId`), sent at `sentAt` for `ttlMs`, and how it means to end it. */
  | { kind: 'reservation'; reservationId: string; reserveId: string; gpsi: string; subBalanceInstId: string; sentAt: number; ttlMs: number; end: ReservationEnd }
  /** The charging partner's CommitReservation or ReleaseReservation (`id`) of a reservation answered Success, sent at `sentAt`. */
  | { kind: 'settle'; id: string; reservationId: string; operation: 'CommitReservation' | 'ReleaseReservation'; sentAt: number }
  /** A reply as the charging partner received it, and when (the test's clock); a reservation's names when it expires. */
  | { kind: 'answer'; id: string; status: string; at: number; expiresAt?: string }
  /** A ReservationExpired event as the charging partner's reader first got it, and when (the test's clock). */
  | { kind: 'expiry-seen'; reservationId: string; at: number }
  /** A ReservationExpired event record (read read_committed): the scheduler released the reservation. */
  | { kind: 'expired'; reservationId: string; ceId: string }
  /** A command topic partition's committed offset of the worker group and its end offset (a transaction marker's, maybe), at the end. */
  | { kind: 'offset'; topic: string; partition: number; committed: number; end: number }
  /** A command topic partition still held by an open transaction when the run ended: read_committed readers, the workers included, see nothing from `stable` on. */
  | { kind: 'held'; topic: string; partition: number; stable: number; end: number }
  /** The run watched the partner's webhook endpoint: every event must reach it. */
  | { kind: 'webhooks'; url: string }
  /** A webhook request for one event (`ceId`, the webhook-id) as the partner's endpoint received it, and its answer. */
  | { kind: 'webhook'; ceId: string; arrivedAt: number; status: number }
  /** A worker told to stop (SIGTERM) that had not exited within the grace, then killed. */
  | { kind: 'stop-overdue'; at: number; worker: string; graceMs: number }
  /** The port partner's send of a CreatePortIn (Kafka, shared port-in command topic): `committed` when Kafka acknowledged it, `unknown` when the send failed (sent again, same id). */
  | { kind: 'port-send'; at: number; id: string; gpsi: string; outcome: 'committed' | 'unknown'; faulty: boolean }
  /** The reply to a CreatePortIn, as the partner received it. */
  | { kind: 'port-reply'; id: string; gpsi: string; status: string }
  /**
   * A port at the end: its status in the port-in store, the activations its subscription's ledger applied, and
   * its event records read read_committed — each PortInActivationEvent's id and status, each SubscriptionActivated's id.
   */
  | { kind: 'port-state'; gpsi: string; status: string; activationsApplied: number; statusEvents: { ceId: string; status: string }[]; activationEvents: string[] }
  /** The NP side at the end: responses the simulator produced, the relay's deliveries, and whether the worker group consumed them all. */
  | { kind: 'np-side'; received: number; delivered: number; duplicated: number; reordered: number; drained: boolean }
  /** A worker that exited, or did not say it had started, within its start time: started again (WorkerPool). */
  | { kind: 'start-failed'; at: number; worker: string; reason: string }
  /** A fault of the schedule, when it began and ended — or failed: the nemesis could not undo it. */
  | { kind: 'fault'; at: number; fault: string; phase: 'begin' | 'end' | 'failed'; error?: string };

export type History = HistoryEvent[];

/** The events of one kind. */
export const ofKind = <K extends HistoryEvent['kind']>(history: History, kind: K): Extract<HistoryEvent, { kind: K }>[] =>
  history.filter((event): event is Extract<HistoryEvent, { kind: K }> => event.kind === kind);
