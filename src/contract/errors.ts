import type { OutgoingMessage } from './messages';

/**
 * The one registry of error codes the service answers with. Codes are stable wire values (they travel in
 * the X-Status header and in ErrorReply.error.code); the HTTP status is what the origin API would answer,
 * kept so partners can map replies to the same semantics.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { httpStatus: 400, description: 'The command is malformed or fails validation; every problem is listed.' },
  UNAUTHORIZED: { httpStatus: 401, description: 'The command carries no valid credentials.' },
  FORBIDDEN: { httpStatus: 403, description: 'The caller may not act for the named wholesale customer.' },
  NOT_FOUND: { httpStatus: 404, description: 'No record matches, or it belongs to another customer.' },
  CONFLICT: { httpStatus: 409, description: 'The command clashes with the current state of the record.' },
  RATE_LIMITED: { httpStatus: 429, description: "The partner's command rate or idempotency quota is exhausted." },
  STALE_COMMAND: { httpStatus: 410, description: 'The command record is older than the window in which the service recognises a repeat; it was not applied.' },
  INTERNAL: { httpStatus: 500, description: 'The service failed to handle the command.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CODES, value);

/** One problem with one field: the path uses dots and [index], e.g. `portInfo.contact.firstName`, `bucketRefId[2]`. */
export interface FieldProblem {
  path: string;
  reason: string;
}

/**
 * The error a handler throws (or returns) to answer with a structured error reply. Anything else thrown
 * by a handler becomes INTERNAL, so an unexpected failure never leaks internals to the requester.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly problems: FieldProblem[];
  /**
   * Events of an effect made although the answer is an error (a transfer the target refused, reversed):
   * published with the error reply, as a success's messages are with its reply.
   */
  readonly messages: OutgoingMessage[];

  constructor(code: ErrorCode, message: string, problems: FieldProblem[] = [], messages: OutgoingMessage[] = []) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.problems = problems;
    this.messages = messages;
  }

  static badRequest(problems: FieldProblem[], message = 'The command is invalid'): ServiceError {
    return new ServiceError('BAD_REQUEST', `${message}: ${problems.length} problem(s)`, problems);
  }
}

export const isServiceError = (error: unknown): error is ServiceError => error instanceof ServiceError;

/**
 * Infrastructure failures (Redis down, Kafka not acknowledging) are not answered: the command stays
 * unacknowledged and is retried. Mirrors kafkajs's `retriable` flag.
 */
export class RetriableError extends Error {
  readonly retriable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetriableError';
  }
}

/** The error as a RetriableError (the original as its cause), for a failure already known to be passing. */
export const asRetriable = (error: unknown): RetriableError => (error instanceof RetriableError ? error : new RetriableError((error as Error)?.message ?? String(error), { cause: error }));
