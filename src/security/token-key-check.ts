import type { AuthKeySource } from '../config/auth';
import { readJwksFile } from './token-keys';

/** A readiness check's answer (observability/readiness.ts CheckResult). */
export type KeySourceState = { ok: boolean; detail: string };

/**
 * Whether the token keys can be read now: the JWKS file parses to public keys, the JWKS URL answers a key
 * set. Tokens cannot be verified without them, so a requester that cannot read them is not ready.
 */
export async function checkTokenKeySource(source: AuthKeySource, signal: AbortSignal): Promise<KeySourceState> {
  switch (source.kind) {
    case 'hs256':
      return { ok: true, detail: 'a shared secret' };
    case 'jwks-file':
      return { ok: true, detail: `${readJwksFile(source.file).keys.length} key(s) in ${source.file}` };
    case 'jwks-url': {
      const response = await fetch(source.url, { signal, headers: { accept: 'application/json' } });
      if (!response.ok) return { ok: false, detail: `${source.url} answered ${response.status}` };
      const keys = ((await response.json()) as { keys?: unknown }).keys;
      return Array.isArray(keys) && keys.length > 0 ? { ok: true, detail: `${keys.length} key(s) at ${source.url}` } : { ok: false, detail: `${source.url} holds no keys` };
    }
  }
}
