import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import { DEFAULT_AUDIENCE, DEFAULT_CUSTOMER_CLAIM } from '../../src/config/auth';

/**
 * Development keys, so the dev stack runs with authentication on: an ES256 key pair created once in
 * .dev-keys/ (git-ignored), its public half published as a JWKS file the service verifies against
 * (AUTH_JWKS_FILE), its private half used by the demo, `npm run dev:env` / `dev:token` (for the CLI) and
 * the tests to sign tokens. Never for production: there the partner-facing identity provider issues the tokens.
 */
export const DEV_KEYS_DIR = '.dev-keys';
export const DEV_ISSUER = 'urn:wholesale:dev-issuer';
const ALG = 'ES256';

export interface DevKeys {
  dir: string;
  /** Public key set: give it to the service as AUTH_JWKS_FILE. */
  jwksFile: string;
  /** Private signing key (JWK, mode 0600). */
  privateKeyFile: string;
  kid: string;
}

const publicHalf = ({ kty, crv, x, y }: JWK): JWK => ({ kty, crv, x, y });

async function createPrivateKeyOnce(privateKeyFile: string): Promise<void> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const draft = `${privateKeyFile}.${process.pid}.${randomUUID()}`;
  writeFileSync(draft, JSON.stringify({ ...jwk, kid: await calculateJwkThumbprint(publicHalf(jwk)), alg: ALG }), { mode: 0o600 });
  try {
    linkSync(draft, privateKeyFile); // atomic and exclusive: a concurrent dev process keeps the first key
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
}

/** Creates the dev key pair in `dir` unless it exists, and (re)writes its public JWKS file. */
export async function ensureDevKeys(dir = DEV_KEYS_DIR): Promise<DevKeys> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const privateKeyFile = join(dir, 'signing-key.jwk.json');
  const jwksFile = join(dir, 'jwks.json');
  if (!existsSync(privateKeyFile)) await createPrivateKeyOnce(privateKeyFile);
  const jwk = JSON.parse(readFileSync(privateKeyFile, 'utf8')) as JWK;
  const kid = jwk.kid!;
  writeFileSync(jwksFile, `${JSON.stringify({ keys: [{ ...publicHalf(jwk), kid, alg: ALG, use: 'sig' }] }, null, 2)}\n`);
  return { dir, jwksFile, privateKeyFile, kid };
}

/** The service settings that make it verify dev tokens (merge into its environment). */
export function devAuthEnv(keys: DevKeys, audience = DEFAULT_AUDIENCE): Record<string, string> {
  return { AUTH_MODE: 'jwt', AUTH_JWKS_FILE: keys.jwksFile, AUTH_ISSUER: DEV_ISSUER, AUTH_AUDIENCE: audience };
}

export interface SignOptions {
  /** Lifetime; default one hour. Negative values make expired tokens (tests). */
  ttlSeconds?: number;
  subject?: string;
  audience?: string;
  issuer?: string;
  notBeforeSeconds?: number;
}

export interface DevSigner {
  readonly keys: DevKeys;
  /** A token naming `customerId` (a partner, or one of its brands) in the customer claim. */
  sign(customerId: string, options?: SignOptions): Promise<string>;
  /** For the client library's `tokenProvider`: a cached token, renewed a minute before it expires. */
  tokenProvider(customerId: string, options?: SignOptions): () => Promise<string>;
}

export async function createDevSigner(options: { dir?: string; audience?: string; customerClaim?: string } = {}): Promise<DevSigner> {
  const keys = await ensureDevKeys(options.dir);
  const jwk = JSON.parse(readFileSync(keys.privateKeyFile, 'utf8')) as JWK;
  const privateKey = (await importJWK(jwk, ALG)) as KeyLike;
  const claim = options.customerClaim ?? DEFAULT_CUSTOMER_CLAIM;
  const sign = async (customerId: string, o: SignOptions = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ [claim]: customerId })
      .setProtectedHeader({ alg: ALG, kid: keys.kid, typ: 'JWT' })
      .setIssuer(o.issuer ?? DEV_ISSUER)
      .setAudience(o.audience ?? options.audience ?? DEFAULT_AUDIENCE)
      .setSubject(o.subject ?? `dev:${customerId}`)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + (o.ttlSeconds ?? 3600));
    if (o.notBeforeSeconds !== undefined) jwt.setNotBefore(now + o.notBeforeSeconds);
    return jwt.sign(privateKey);
  };
  const tokenProvider = (customerId: string, o: SignOptions = {}) => {
    let cached: { token: string; renewAt: number } | undefined;
    return async () => {
      if (!cached || Date.now() >= cached.renewAt) {
        const ttlSeconds = o.ttlSeconds ?? 3600;
        cached = { token: await sign(customerId, o), renewAt: Date.now() + Math.max(0, ttlSeconds - 60) * 1000 };
      }
      return cached.token;
    };
  };
  return { keys, sign, tokenProvider };
}
