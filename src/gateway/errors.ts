import { ERROR_CODES, isErrorCode, type FieldProblem } from '../contract/errors';
import { InvalidCommandError, RequestTimeoutError, ServiceReplyError, ClientClosedError } from '../client/errors';

/**
 * How the gateway answers a request that did not end in a Success reply: an HTTP status and the body of
 * the contract's ErrorReply (`{ status, operation, error: { code, message, problems } }`), whether the
 * service refused the command or the gateway never sent it. The service's codes keep the statuses of the
 * error registry (src/contract/errors.ts); the gateway adds its own for what only HTTP can go wrong with.
 */
export const GATEWAY_ERROR_CODES = {
  PAYLOAD_TOO_LARGE: { httpStatus: 413, description: 'The request body is larger than the gateway accepts; nothing was sent.' },
  UNSUPPORTED_MEDIA_TYPE: { httpStatus: 415, description: 'The request body is not application/json; nothing was sent.' },
  UNAVAILABLE: {
    httpStatus: 503,
    description: 'The command could not be sent (Kafka, the registry or the token keys unreachable, or the gateway stopping); retry with the same X-Correlation-Id.',
  },
  GATEWAY_TIMEOUT: { httpStatus: 504, description: 'No reply in time; the command may still be applied. Retry with the same X-Correlation-Id: it is answered once, applied once.' },
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_CODES;
type AnyCode = keyof typeof ERROR_CODES | GatewayErrorCode;

export interface ErrorBody {
  status: string;
  operation: string | null;
  error: { code: string; message: string; problems: FieldProblem[] };
}

export interface HttpError {
  statusCode: number;
  body: ErrorBody;
}

const statusOf = (code: string): number => (isErrorCode(code) ? ERROR_CODES[code].httpStatus : code in GATEWAY_ERROR_CODES ? GATEWAY_ERROR_CODES[code as GatewayErrorCode].httpStatus : 500);

export const errorBody = (code: string, message: string, problems: FieldProblem[] = [], operation: string | null = null): ErrorBody => ({
  status: code,
  operation,
  error: { code, message, problems },
});

/** An answer the gateway gives itself, thrown from a hook or handler and turned into its body by the error handler. */
export class GatewayError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: AnyCode,
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'GatewayError';
    this.statusCode = statusOf(code);
  }
}

/** One ajv error as a field problem in the service's notation: `portInfo.contact.firstName`, `bucketRefId[2]`. */
interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function fieldPathOf(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

export const problemsOf = (issues: readonly ValidationIssue[]): FieldProblem[] =>
  issues.map((issue) =>
    issue.keyword === 'required'
      ? { path: fieldPathOf(issue.instancePath, String(issue.params.missingProperty)), reason: 'is required' }
      : { path: fieldPathOf(issue.instancePath), reason: issue.message ?? issue.keyword },
  );

/** fastify's own refusals (no route, unparsable JSON, body too large, schema validation…), by its error codes. */
interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: ValidationIssue[];
  validationContext?: string;
}

function fromFastify(error: FastifyLikeError, operation: string | null): HttpError | undefined {
  if (error.validation) {
    const where = error.validationContext === 'body' ? 'body' : error.validationContext === 'querystring' ? 'query parameters' : (error.validationContext ?? 'request');
    const problems = problemsOf(error.validation);
    return { statusCode: 400, body: errorBody('BAD_REQUEST', `The request's ${where} do not fit the command's schema: ${problems.length} problem(s); nothing was sent`, problems, operation) };
  }
  if (error.code === undefined) return undefined;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { statusCode: 413, body: errorBody('PAYLOAD_TOO_LARGE', `${error.message}; nothing was sent`, [], operation) };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { statusCode: 415, body: errorBody('UNSUPPORTED_MEDIA_TYPE', 'Send the command as Content-Type: application/json; nothing was sent', [], operation) };
    default:
      return undefined;
  }
}

/** Any failure of a request as its status and ErrorReply body; `operation` is the command's record name when known. */
export function httpErrorOf(error: unknown, operation: string | null): HttpError {
  if (error instanceof GatewayError) return { statusCode: error.statusCode, body: errorBody(error.code, error.message, error.problems, operation) };
  if (error instanceof ServiceReplyError) {
    return { statusCode: statusOf(error.code), body: errorBody(error.code, error.serviceMessage, [...error.problems], operation) };
  }
  if (error instanceof RequestTimeoutError) {
    const message = `No reply within ${error.timeoutMs} ms to X-Correlation-Id ${error.correlationId}; the command may still be applied: retry with the same X-Correlation-Id (answered once, applied once)`;
    return { statusCode: 504, body: errorBody('GATEWAY_TIMEOUT', message, [], operation) };
  }
  if (error instanceof InvalidCommandError) {
    return { statusCode: 400, body: errorBody('BAD_REQUEST', `The command does not fit its schema: ${error.problems.length} problem(s); nothing was sent`, [...error.problems], operation) };
  }
  if (error instanceof ClientClosedError) return { statusCode: 503, body: errorBody('UNAVAILABLE', 'The gateway is stopping; retry with the same X-Correlation-Id', [], operation) };
  const known = fromFastify(error as FastifyLikeError, operation);
  if (known) return known;
  const status = (error as FastifyLikeError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { statusCode: status, body: errorBody('BAD_REQUEST', (error as Error).message, [], operation) };
  return { statusCode: 503, body: errorBody('UNAVAILABLE', 'The command could not be sent or its reply not read; retry with the same X-Correlation-Id', [], operation) };
}
