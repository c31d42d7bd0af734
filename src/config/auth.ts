import { ConfigError, type EnvReader } from '../app/config';

/**
 * Security settings (docs/security.md): who may send commands (AUTH_*), the customer hierarchy
 * (CUSTOMERS_FILE), per-partner rate limits (RATE_LIMIT_*) and Kafka transport security (KAFKA_TLS_*,
 * KAFKA_SASL_*). Read through the one EnvReader of src/config, validated at start like every setting.
 */

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
  /** Commands a partner may send at once after being idle (the bucket size). */
  burst: number;
}

export interface KafkaTlsSettings {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  keyPassphrase?: string;
  rejectUnauthorized: boolean;
  servername?: string;
}

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaSaslSettings {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

/** Transport security of every Kafka client of the service, the NP simulator and the client library. */
export interface KafkaSecurity {
  tls?: KafkaTlsSettings;
  sasl?: KafkaSaslSettings;
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
  return { perSecond, burst: reader.integer('RATE_LIMIT_BURST', Math.max(1, perSecond * 2), 1, 10_000_000) };
}

function loadTls(reader: EnvReader): KafkaTlsSettings | undefined {
  const tls = {
    caFile: reader.optionalString('KAFKA_TLS_CA_FILE'),
    certFile: reader.optionalString('KAFKA_TLS_CERT_FILE'),
    keyFile: reader.optionalString('KAFKA_TLS_KEY_FILE'),
    keyPassphrase: reader.optionalString('KAFKA_TLS_KEY_PASSPHRASE'),
    servername: reader.optionalString('KAFKA_TLS_SERVERNAME'),
    rejectUnauthorized: reader.boolean('KAFKA_TLS_REJECT_UNAUTHORIZED', true),
  };
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new ConfigError('KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE together (client certificate and its key)', tls.certFile ?? tls.keyFile);
  }
  // Giving any TLS file turns TLS on; KAFKA_TLS=true alone means TLS with the system's trusted CAs.
  const enabled = reader.boolean('KAFKA_TLS', tls.caFile !== undefined || tls.certFile !== undefined);
  return enabled ? tls : undefined;
}

function loadSasl(reader: EnvReader): KafkaSaslSettings | undefined {
  const raw = reader.optionalString('KAFKA_SASL_MECHANISM');
  if (raw === undefined) return undefined;
  const mechanism = raw.toLowerCase() as SaslMechanism; // Kafka spells them upper case, kafkajs lower case: accept both
  if (!SASL_MECHANISMS.includes(mechanism)) throw new ConfigError('KAFKA_SASL_MECHANISM', `one of ${SASL_MECHANISMS.join(', ')}`, raw);
  return { mechanism, username: reader.string('KAFKA_SASL_USERNAME'), password: reader.string('KAFKA_SASL_PASSWORD') };
}

export function loadKafkaSecurity(reader: EnvReader): KafkaSecurity {
  const security: KafkaSecurity = {};
  const tls = loadTls(reader);
  const sasl = loadSasl(reader);
  if (tls) security.tls = tls;
  if (sasl) security.sasl = sasl;
  return security;
}

/** The key that seals dead letters (src/security/dead-letter-seal.ts): an id and 32 bytes in base64. */
export interface DeadLetterKeySetting {
  id: string;
  /** Base64 of the 32 key bytes (kept as text so a logged configuration shows it redacted, never its bytes). */
  key: string;
}

export interface DeadLetterSettings {
  /** Absent only with AUTH_MODE=none: then dead letters carry no body at all. */
  encryptionKey?: DeadLetterKeySetting;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const DEAD_LETTER_KEY_BYTES = 32;

/** Base64 of exactly 32 bytes, canonical (what `openssl rand -base64 32` prints). */
function deadLetterKeyBytes(variable: string, raw: string): string {
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length !== DEAD_LETTER_KEY_BYTES || bytes.toString('base64') !== raw) {
    throw new ConfigError(variable, `base64 of ${DEAD_LETTER_KEY_BYTES} random bytes (openssl rand -base64 32)`, '[redacted]');
  }
  return raw;
}

function deadLetterKeyId(reader: EnvReader): string {
  const id = reader.string('DLQ_ENCRYPTION_KEY_ID', 'dlq-1');
  if (!KEY_ID.test(id)) throw new ConfigError('DLQ_ENCRYPTION_KEY_ID', 'letters, digits, . _ - (1 to 64)', id);
  return id;
}

/**
 * With AUTH_MODE=jwt (production) the service does not start without a dead-letter key: a dead letter
 * keeps the original bytes for re-processing, and those may hold a port-in's PIN and account number.
 */
export function loadDeadLetterSettings(reader: EnvReader, authMode: AuthSettings['mode']): DeadLetterSettings {
  const id = deadLetterKeyId(reader);
  const raw = reader.optionalString('DLQ_ENCRYPTION_KEY');
  if (raw === undefined) {
    if (authMode === 'jwt') throw new ConfigError('DLQ_ENCRYPTION_KEY', 'base64 of 32 random bytes with AUTH_MODE=jwt (dead letters are sealed with it)', undefined);
    return {};
  }
  return { encryptionKey: { id, key: deadLetterKeyBytes('DLQ_ENCRYPTION_KEY', raw) } };
}

/** The operator's keys to open dead letters: the current one and older ones (`id:base64,…`), by key id. */
export function loadDeadLetterKeyring(reader: EnvReader): DeadLetterKeySetting[] {
  const keys: DeadLetterKeySetting[] = [];
  const current = reader.optionalString('DLQ_ENCRYPTION_KEY');
  if (current !== undefined) keys.push({ id: deadLetterKeyId(reader), key: deadLetterKeyBytes('DLQ_ENCRYPTION_KEY', current) });
  for (const entry of (reader.optionalString('DLQ_DECRYPTION_KEYS') ?? '').split(',').filter(Boolean)) {
    const [id, key] = entry.trim().split(':');
    if (!id || !KEY_ID.test(id) || key === undefined) throw new ConfigError('DLQ_DECRYPTION_KEYS', 'comma-separated id:base64 entries', '[redacted]');
    keys.push({ id, key: deadLetterKeyBytes('DLQ_DECRYPTION_KEYS', key) });
  }
  return keys;
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
