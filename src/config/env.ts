// The environment reader every program's settings go through (the service's src/app/config.ts, the
// client's, the CLI's, the dev tools' and the benchmark's). Every setting comes from the environment, is
// validated at start, and a missing or bad value stops the process with one line naming the variable and
// what it expects (ConfigError). Nothing else reads process.env.

export class ConfigError extends Error {
  constructor(readonly variable: string, readonly expected: string, readonly got: string | undefined) {
    super(`${variable}: expected ${expected}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

function isUrl(raw: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/** Reads typed values from an environment, throwing ConfigError on the first bad one. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  string(variable: string, fallback?: string): string {
    const value = this.env[variable];
    if (value === undefined || value === '') {
      if (fallback === undefined) throw new ConfigError(variable, 'a non-empty value', value);
      return fallback;
    }
    return value;
  }

  optionalString(variable: string): string | undefined {
    const value = this.env[variable];
    return value === undefined || value === '' ? undefined : value;
  }

  integer(variable: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(variable, `a whole number from ${min} to ${max}`, raw);
    }
    return value;
  }

  boolean(variable: string, fallback: boolean): boolean {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(variable, 'true or false', raw);
  }

  matching(variable: string, pattern: RegExp, expected: string, fallback: string): string {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (!pattern.test(raw)) throw new ConfigError(variable, expected, raw);
    return raw;
  }

  oneOf<T extends string>(variable: string, allowed: readonly T[], fallback: T): T {
    const raw = this.env[variable];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(variable, `one of ${allowed.join(', ')}`, raw);
    return raw as T;
  }

  url(variable: string, protocols: readonly string[]): string {
    const raw = this.string(variable);
    if (!isUrl(raw, protocols)) throw new ConfigError(variable, `a URL (${protocols.join(' or ')})`, raw);
    return raw;
  }

  /** One URL, or several separated by commas (the nodes of a cluster). */
  urlList(variable: string, protocols: readonly string[]): string[] {
    const raw = this.string(variable);
    const urls = raw.split(',').map((u) => u.trim()).filter(Boolean);
    if (urls.length === 0 || !urls.every((u) => isUrl(u, protocols))) {
      throw new ConfigError(variable, `comma-separated URLs (${protocols.join(' or ')})`, raw);
    }
    return urls;
  }

  brokers(variable: string): string[] {
    const raw = this.string(variable);
    const brokers = raw.split(',').map((b) => b.trim()).filter(Boolean);
    if (brokers.length === 0 || brokers.some((b) => !/^[^\s:]+:\d{1,5}$/.test(b))) {
      throw new ConfigError(variable, 'a comma-separated list of host:port', raw);
    }
    return brokers;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** LOG_LEVEL: a pino level. */
export const readLogLevel = (reader: EnvReader, fallback: (typeof LOG_LEVELS)[number]): string => reader.oneOf('LOG_LEVEL', LOG_LEVELS, fallback);
