import { ConfigError, type EnvReader } from './env';

// Who may send commands and how much (docs/security.md): token verification (AUTH_*), per-partner
// rate limits (RATE_LIMIT_*) and the budget of refused commands (REJECTED_*). Kafka transport security is
// in kafka.ts, the dead-letter keys in dead-letter-keys.ts.

/** Where the keys that verify command tokens come from: exactly one source. */
export type AuthKeySource =
  | { kind: 'jwks-file'; file: string }
  | { kind: 'jwks-url'; url: string }
  | { kind: 'hs256'; secret: string };

export interface JwtAuthSettings {
  mode: 'jwt';
  keys: AuthKeySource;
  issuer: string;
  audience: string;
  /** Seconds of clock skew accepted on exp and nbf. */
  clockToleranceSeconds: number;
  /** The token claim naming the caller's node of the customer hierarchy (normally the partner root). */
  customerClaim: string;
}

/** AUTH_MODE=none: no token is checked (local work only; the service warns at start). */
export type AuthSettings = JwtAuthSettings | { mode: 'none' };

export interface RateLimitSettings {
  /** Commands per second each partner may send on average; 0 turns the limit off. */
  perSecond: number;
  /** Commands a partner may send at once after being idle, above its rate. */
  burst: number;
  /**
   * How far back a command's send time (its record's timestamp) is believed: a command that waited in the
   * service's own backlog up to this long is charged to when it was sent; an older or future timestamp is
   * taken as this far back, or as now.
   */
  backlogSeconds: number;
}

export const DEFAULT_AUDIENCE = 'wholesale-portin-balance';
export const DEFAULT_CUSTOMER_CLAIM = 'wholesaleCustomerId';
/** HS256 with a short secret can be brute-forced offline from one token: RFC 7518 asks for at least 256 bits. */
const MIN_HS256_SECRET = 32;

function authKeys(reader: EnvReader): AuthKeySource {
  const file = reader.optionalString('AUTH_JWKS_FILE');
  const url = reader.optionalString('AUTH_JWKS_URL');
  const secret = reader.optionalString('AUTH_HS256_SECRET');
  const given = [file, url, secret].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw new ConfigError('AUTH_JWKS_FILE', 'exactly one of AUTH_JWKS_FILE, AUTH_JWKS_URL or AUTH_HS256_SECRET with AUTH_MODE=jwt', given === 0 ? undefined : `${given} key sources`);
  }
  if (file !== undefined) return { kind: 'jwks-file', file };
  if (url !== undefined) return { kind: 'jwks-url', url: reader.url('AUTH_JWKS_URL', ['http:', 'https:']) };
  if (secret!.length < MIN_HS256_SECRET) throw new ConfigError('AUTH_HS256_SECRET', `at least ${MIN_HS256_SECRET} characters`, '[redacted]');
  return { kind: 'hs256', secret: secret! };
}

export function loadAuthSettings(reader: EnvReader): AuthSettings {
  const mode = reader.oneOf('AUTH_MODE', ['jwt', 'none'] as const, 'jwt');
  if (mode === 'none') return { mode };
  return {
    mode,
    keys: authKeys(reader),
    issuer: reader.string('AUTH_ISSUER'),
    audience: reader.string('AUTH_AUDIENCE', DEFAULT_AUDIENCE),
    clockToleranceSeconds: reader.integer('AUTH_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
    customerClaim: reader.string('AUTH_CUSTOMER_CLAIM', DEFAULT_CUSTOMER_CLAIM),
  };
}

export function loadRateLimitSettings(reader: EnvReader): RateLimitSettings {
  const perSecond = reader.integer('RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000);
  return {
    perSecond,
    burst: reader.integer('RATE_LIMIT_BURST', Math.max(1, perSecond * 2), 1, 10_000_000),
    backlogSeconds: reader.integer('RATE_LIMIT_BACKLOG_SECONDS', 120, 0, 3600),
  };
}

/**
 * The budget of refused traffic (UNAUTHORIZED, FORBIDDEN): an in-process token bucket per claimed partner
 * and one for records without a usable claim. Past it a refusal is only counted (docs/security.md).
 */
export interface RejectedRateSettings {
  perSecond: number;
  burst: number;
}

export function loadRejectedRateSettings(reader: EnvReader): RejectedRateSettings {
  const perSecond = reader.integer('REJECTED_RATE_PER_SECOND', 10, 0, 1_000_000);
  return { perSecond, burst: reader.integer('REJECTED_BURST', Math.max(1, perSecond * 2), 1, 10_000_000) };
}
