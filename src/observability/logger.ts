import pino, { type Logger } from 'pino';
import { isTracing, logTraceFields } from '../shared/tracing';

/**
 * pino JSON logs. Secrets never reach a log line: the redaction list covers credentials and the
 * port-in secrets wherever they appear in a logged object.
 *
 * Written to stdout asynchronously: pino's default destination writes every line with a blocking
 * write(2) on the event loop, one per command under load. Asynchronously, lines logged while a write is
 * under way are written together by the next one, so the loop never blocks and a busy worker makes a
 * few large writes instead of thousands of small ones. Nothing waits at low traffic, and what is still
 * buffered is flushed synchronously when the process exits (pino registers that hook).
 */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'Authorization',
  '*.Authorization',
  'headers.Authorization',
  'headers.authorization',
  '*.headers.Authorization',
  '*.headers.authorization',
  'password',
  '*.password',
  '*.*.password',
  'secret',
  '*.secret',
  '*.*.secret',
  'pwdPin',
  '*.pwdPin',
  '*.*.pwdPin',
  '*.*.*.pwdPin',
  'accountNo',
  '*.accountNo',
  '*.*.accountNo',
  '*.*.*.accountNo',
  'token',
  '*.token',
];

const unredacted = new WeakMap<Logger, Logger>();

/** With tracing on (started before the logger, as the entry points do), lines inside a span carry trace_id/span_id. */
export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  const settings = { name: options.name, level: options.level, base: { service: options.name }, timestamp: pino.stdTimeFunctions.isoTime, ...(isTracing() ? { mixin: logTraceFields } : {}) };
  const log = pino({ ...settings, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
  unredacted.set(log, pino(settings, destination));
  return log;
}

/**
 * For lines whose every field the service composes from values that are never secret — the one line
 * per command (ids, operation, position, outcome, duration): a logger with the same destination, level
 * and fields but no redaction, which costs about 20 µs a line with the redaction list above, a twentieth
 * of a command's CPU (docs/benchmarks.md). A logger not made by createLogger is returned as it is.
 */
export function unredactedLogger(log: Logger): Logger {
  return unredacted.get(log) ?? log;
}
