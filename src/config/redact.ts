// The configuration as it may be logged: values of secret-named settings (passwords, tokens, keys,
// credentials) are replaced, and credentials inside URLs (user:password@, ?token=) are masked wherever
// a URL appears. Pure: the input is not changed.

export const REDACTED = '[redacted]';

const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'tokens', 'credential', 'credentials', 'authorization', 'pin', 'apikey']);
/** Only as the last word: `jwtSigningKey` is a secret, `keyPrefix` is not. */
const SECRET_LAST_WORDS = new Set(['key', 'keys', 'auth']);

/** The words of a camelCase, snake_case, kebab-case or dotted name, lower-cased. */
const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

export function isSecretName(name: string): boolean {
  const words = wordsOf(name);
  return words.some((word) => SECRET_WORDS.has(word)) || SECRET_LAST_WORDS.has(words[words.length - 1] ?? '');
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Masks the userinfo and secret-named query parameters of a URL; other text is returned as it was. */
export function redactUrl(text: string): string {
  if (!URL_LIKE.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.password) {
    url.password = REDACTED;
    changed = true;
  } else if (url.username) {
    // A user name without a password is often a token (https://<token>@host).
    url.username = REDACTED;
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (isSecretName(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED) : text;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function redactValue(value: unknown, name: string | undefined): unknown {
  // A secret-named section (`auth: {...}`) is walked: its plain members (`mode`) stay readable.
  const secret = name !== undefined && isSecretName(name) && !isPlainObject(value);
  if (secret && value !== undefined && value !== null && value !== '') return REDACTED;
  if (typeof value === 'string') return redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, undefined));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, key)]));
  }
  return value;
}

export function redactConfig<T extends object>(config: T): T {
  return redactValue(config, undefined) as T;
}
