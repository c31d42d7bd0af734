import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_KEYS_DIR } from './dev-signer';

/**
 * The dev stack's dead-letter key, made once in .dev-keys/ (git-ignored, mode 0600) beside the dev token
 * keys, so `npm run dev` seals dead letters as production does and `wholesale admin dlq decrypt` opens
 * them with what `npm run dev:env` exports. Never use it anywhere else.
 */
export const DEV_DEAD_LETTER_KEY_ID = 'dev-dlq';

export function ensureDevDeadLetterKey(dir = DEV_KEYS_DIR): { id: string; key: string; file: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'dlq-key.base64');
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' }); // exclusive: a concurrent dev process keeps the first key
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { id: DEV_DEAD_LETTER_KEY_ID, key: readFileSync(file, 'utf8').trim(), file };
}

/** The service settings that make it seal dead letters with the dev key. */
export function devDeadLetterEnv(dir = DEV_KEYS_DIR): Record<string, string> {
  const { id, key } = ensureDevDeadLetterKey(dir);
  return { DLQ_ENCRYPTION_KEY: key, DLQ_ENCRYPTION_KEY_ID: id };
}
