import type { AuthSettings } from './auth';
import { ConfigError, type EnvReader } from './env';

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
