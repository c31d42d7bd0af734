import type { ErrorCode, FieldProblem } from './errors';
import type { Logger } from './log';
import type { OutgoingMessage } from './messages';
import type { Domain } from './topics';

// The contract between the pipeline and the handlers. A handler is a plain async function of
// (command, context): it validates with the pure domain core, does its I/O through the small interfaces
// its factory received (its feature's ports file), and returns the reply plus the messages to publish.
// It never touches Kafka itself: the pipeline sends reply and messages together and only then commits the
// offset, so a handler is unit-testable with in-memory fakes of its interfaces.

export interface CommandContext {
  /** X-Correlation-Id as received, or a UUID derived from the record's position when the header is missing. */
  readonly correlationId: string;
  /**
   * Stable identity of this command's effect: a hash of (wholesale customer, operation, correlation id).
   * Mutating Redis scripts record it with their outcome so a redelivered command returns the recorded
   * outcome instead of applying twice.
   */
  readonly commandId: string;
  /** Record name without namespace, e.g. `CheckPortInEligibility`. */
  readonly operation: string;
  /**
   * The node of the customer hierarchy acted for: the wholesaleCustomerId header when given (already
   * checked to lie in the caller's subtree), else the caller's own node (undefined in AUTH_MODE=none without
   * header). The owner of the records a command creates.
   */
  readonly wholesaleCustomerId: string | undefined;
  /**
   * Whether a record owned by `owner` is visible to this command: the owner is the acting node or lies below
   * it (a partner sees its brands' records; a brand not its sibling's). Answer NOT_FOUND for an invisible
   * record, exactly as for a missing one, so the reply never hints that it exists.
   */
  canSee: (owner: string | null | undefined) => boolean;
  /** The acting node and every node below it: for the same check inside a Lua script (membership). */
  readonly visibleCustomerIds: readonly string[];
  /** The handler's clock: use this, never `new Date()`, so tests and replays are deterministic. */
  readonly now: Date;
  readonly log: Logger;
  /**
   * The command payload's fingerprint. A store that records a change's outcome itself keeps it there and
   * answers CONFLICT when the same command id comes back with another payload.
   */
  readonly fingerprint: string;
  /**
   * Set when this change may only replay a recorded outcome: the partner's rate or idempotency quota is
   * spent, the record is too old (STALE_COMMAND), or the command has problems that depend on when or where it
   * is handled (a due date against today, the catalog: BAD_REQUEST with them). A store that records outcomes
   * itself replays a recorded one, but answers this refusal instead of applying a new change.
   */
  readonly refuseNew?: Refusal;
}

/** An error answer decided before the handler ran, given to it to answer unless a recorded outcome wins. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  problems?: FieldProblem[];
}

export interface HandlerResult<Reply extends object = Record<string, unknown>> {
  /** The success reply payload (fields of the operation's `<Operation>Reply` record). */
  reply: Reply;
  messages?: OutgoingMessage[];
  /** The store answered from the outcome it recorded for this command earlier: nothing was applied now. */
  replayed?: boolean;
}

/** Throw a ServiceError (src/contract/errors.ts) for an error reply; anything else thrown becomes INTERNAL. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one registry holds handlers of every command type; the pipeline checks each command against its schema first
export type Handler<Command = any, Reply extends object = Record<string, unknown>> = (command: Command, context: CommandContext) => Promise<HandlerResult<Reply>>;

export interface HandlerRegistration {
  domain: Domain;
  /** Command record full name, e.g. `wholesale.portin.v1.CheckPortInEligibility`. */
  commandRecord: string;
  /** Success reply record full name, e.g. `wholesale.portin.v1.CheckPortInEligibilityReply`. */
  replyRecord: string;
  /**
   * Pure field validation of the command. The pipeline runs it before the handler and answers BAD_REQUEST
   * with its problems together with any header problems, so the requester sees every problem at once.
   * `now` is the worker's clock, for rules that depend on the date (a due date no earlier than…).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each registration validates its own command type, which the registry cannot name
  validate?: (command: any, now: Date) => FieldProblem[];
  /**
   * The problems that depend on when or where the command is handled, not on the command alone: a due date
   * against today's calendar, a plan or bucket against the catalog. The pipeline lists them with
   * `validate`'s; but a change with only these goes on to its handler with them as `refuseNew`, so that a
   * redelivery of a change applied when they did not hold answers its recorded outcome.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as validate: each registration names its own command type
  situation?: (command: any, now: Date) => FieldProblem[];
  /**
   * The handler changes nothing (a query): a redelivery simply runs it again and answers from the current
   * state; it is neither counted against the idempotency quota nor recorded. Every other handler is a
   * change whose store records its outcome atomically with it, under the command id and with the payload's
   * fingerprint (CommandContext), for IDEMPOTENCY_TTL_SECONDS: a redelivery runs the handler again, which
   * rebuilds the same reply and events from that record (deterministic event ids, the recorded time) and
   * says so (`replayed`), or answers CONFLICT when the same command id comes with another payload.
   */
  readOnly?: boolean;
  handle: Handler;
}
