import { decodeJwt } from 'jose';
import { CUSTOMER_ID } from './hierarchy';
import type { Caller } from './access';

// The pure parts of token authentication: reading the Authorization header, turning verified claims into
// a Caller, and remembering verified tokens until they expire (a client reuses one token for many
// commands; verifying its signature once is enough).

/** A compact JWS: three base64url parts. Longer headers are refused by the envelope (4096 characters). */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** The token of an `Authorization: Bearer <JWT>` header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header.trim())?.[1];
}

/** The caller a verified token names, or undefined when the customer claim is missing or not a node id. */
export function callerFromClaims(claims: Record<string, unknown>, customerClaim: string): Caller | undefined {
  const customerId = claims[customerClaim];
  if (typeof customerId !== 'string' || customerId.length > CUSTOMER_ID.max! || !CUSTOMER_ID.pattern!.test(customerId)) return undefined;
  return { customerId, subject: typeof claims.sub === 'string' ? claims.sub.slice(0, 128) : undefined };
}

/**
 * The node a token CLAIMS to act for, read without verifying it (jose decodeJwt): only to account refused
 * traffic to the partner it names, never to grant anything. Undefined when there is no readable claim.
 */
export function claimedCustomerId(authorization: string | undefined, customerClaim: string): string | undefined {
  const token = bearerToken(authorization);
  if (token === undefined) return undefined;
  try {
    const claimed = decodeJwt(token)[customerClaim];
    return typeof claimed === 'string' ? claimed : undefined;
  } catch {
    return undefined;
  }
}

/** Verified tokens and their callers, until the token's expiry; the oldest entries go first when full. */
export class VerifiedTokens {
  private readonly entries = new Map<string, { caller: Caller; expiresAtMs: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(token: string, nowMs: number): Caller | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.caller;
  }

  put(token: string, caller: Caller, expiresAtMs: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { caller, expiresAtMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
