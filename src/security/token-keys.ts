import { readFileSync, statSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { AuthKeySource } from '../config/auth';
import type { TokenKeys } from './jwt-authenticator';

/** Asymmetric algorithms accepted with a key set; HS256 only with a shared secret, never with a JWKS. */
export const JWKS_ALGORITHMS = ['RS256', 'ES256'];
export const SECRET_ALGORITHMS = ['HS256'];

export interface TokenKeyOptions {
  /** How often a JWKS file may be re-read when a token names a key it does not hold (key rotation). */
  fileReloadCooldownMs?: number;
  /** How long a JWKS URL may take to answer. */
  fetchTimeoutMs?: number;
}

export function readJwksFile(file: string): JSONWebKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`AUTH_JWKS_FILE ${file}: cannot read a JSON key set: ${(error as Error).message}`, { cause: error });
  }
  const keys = (parsed as JSONWebKeySet | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error(`AUTH_JWKS_FILE ${file}: expected {"keys": [...]} with at least one public key`);
  if (keys.some((k) => typeof k === 'object' && k !== null && 'd' in k)) throw new Error(`AUTH_JWKS_FILE ${file}: holds a private key; publish public keys only`);
  return { keys };
}

/**
 * A JWKS file, read at start (a bad file stops the service) and again when a token names a key id the
 * loaded set lacks, at most every 30 s: rotating keys is replacing the file, no restart needed.
 */
function fileKeys(file: string, cooldownMs: number): JWTVerifyGetKey {
  let current = createLocalJWKSet(readJwksFile(file));
  let mtimeMs = statSync(file).mtimeMs;
  let checkedAt = Date.now();
  return async (header, token) => {
    try {
      return await current(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || Date.now() - checkedAt < cooldownMs) throw error;
      checkedAt = Date.now();
      const changed = statSync(file).mtimeMs;
      if (changed === mtimeMs) throw error;
      current = createLocalJWKSet(readJwksFile(file));
      mtimeMs = changed;
      return current(header, token);
    }
  };
}

/** The verification keys of AUTH_JWKS_FILE, AUTH_JWKS_URL (fetched and cached by jose) or AUTH_HS256_SECRET. */
export function tokenKeysFrom(source: AuthKeySource, options: TokenKeyOptions = {}): TokenKeys {
  switch (source.kind) {
    case 'jwks-file':
      return { key: fileKeys(source.file, options.fileReloadCooldownMs ?? 30_000), algorithms: JWKS_ALGORITHMS };
    case 'jwks-url': {
      const remote = createRemoteJWKSet(new URL(source.url), { timeoutDuration: options.fetchTimeoutMs ?? 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
      return { key: remote, algorithms: JWKS_ALGORITHMS };
    }
    case 'hs256':
      return { key: new TextEncoder().encode(source.secret), algorithms: SECRET_ALGORITHMS };
  }
}
