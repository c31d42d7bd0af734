import { SchemaMismatchError } from '../contract/codec';
import type { ErrorCode, FieldProblem } from '../contract/errors';

/** Base of every error the client raises itself, so callers can tell ours from kafkajs's or the registry's. */
export class WholesaleClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No reply within the call's timeout (default 5 s, as Spring's ReplyingKafkaTemplate). */
export class RequestTimeoutError extends WholesaleClientError {
  constructor(
    readonly operation: string,
    readonly correlationId: string,
    readonly timeoutMs: number,
  ) {
    super(`${operation}: no reply within ${timeoutMs} ms (X-Correlation-Id ${correlationId})`);
  }
}

/** The service answered with an ErrorReply: its code, message and every field problem it found. */
export class ServiceReplyError extends WholesaleClientError {
  constructor(
    readonly operation: string,
    readonly correlationId: string,
    /** One of src/contract/errors.ts (BAD_REQUEST, NOT_FOUND, CONFLICT…); a newer service may add codes. */
    readonly code: ErrorCode | (string & {}),
    readonly serviceMessage: string,
    readonly problems: readonly FieldProblem[],
  ) {
    super(`${operation}: ${code}: ${serviceMessage}${problems.length > 0 ? ` (${problems.map((p) => `${p.path}: ${p.reason}`).join('; ')})` : ''}`);
  }
}

/**
 * The command does not fit its Avro schema (a required field missing, a value of the wrong type), so it
 * was never sent. Library callers are kept from this by the generated types; JSON from files is not.
 */
export class InvalidCommandError extends WholesaleClientError {
  constructor(
    readonly operation: string,
    readonly problems: readonly FieldProblem[],
    options?: { cause?: unknown },
  ) {
    super(`${operation}: the command does not match its schema: ${problems.map((p) => p.path).join(', ')}`, options);
  }
}

/** The call was made on, or was still waiting when, the client was closed. */
export class ClientClosedError extends WholesaleClientError {
  constructor(operation: string) {
    super(`${operation}: the client is closed`);
  }
}

/** avsc's path segments (`['balances', '0', 'quantity']`) in the service's notation (`balances[0].quantity`). */
export const fieldPath = (segments: readonly string[]): string => segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

/** The codec's refusal of an encode (the value does not fit its schema), as the InvalidCommandError it means. */
export function asInvalidCommand(operation: string, error: unknown): InvalidCommandError | undefined {
  if (!(error instanceof SchemaMismatchError)) return undefined;
  const problems = error.paths.map((segments) => ({ path: fieldPath(segments), reason: 'missing, or not of the type the schema gives' }));
  return new InvalidCommandError(operation, problems, { cause: error });
}
