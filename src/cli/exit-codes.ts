/** Exit codes of the `wholesale` CLI (documented in docs/client.md and in `wholesale --help`). */
export const EXIT = {
  /** The service answered Success (or `events tail` ended normally). */
  SUCCESS: 0,
  /** Anything unexpected: Kafka or the registry unreachable, a schema not registered, a bug. */
  FAILURE: 1,
  /** Bad flags, unreadable or invalid JSON, a command that does not fit its schema, bad configuration. */
  USAGE: 2,
  /** The service answered with an error (ErrorReply): its code and every field problem are printed. */
  SERVICE_ERROR: 3,
  /** No reply within the timeout. */
  TIMEOUT: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  Success
  1  unexpected failure (Kafka or schema registry unreachable, schema not registered…)
  2  usage error (bad flags or JSON, command not matching its schema, bad configuration)
  3  the service answered with an error (code and every field problem printed)
  4  no reply within the timeout`;
