// The logger the project's code writes to: pino's methods, named here so that code which only logs (the
// handlers, the client library, the Kafka adapter) does not depend on pino. A pino logger is one; the
// client library has a small one of its own (src/client/log.ts).

export interface LogFn {
  (fields: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  /** A logger adding `bindings` to every line. */
  child(bindings: Record<string, unknown>): Logger;
}
