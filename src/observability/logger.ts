import pino, { type Logger } from 'pino';

/**
 * pino JSON logs. Secrets never reach a log line: the redaction list covers credentials and the
 * port-in secrets wherever they appear in a logged object.
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

export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  }, options.destination);
}
