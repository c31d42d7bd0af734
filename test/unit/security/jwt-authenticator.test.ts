import { SignJWT, UnsecuredJWT, createLocalJWKSet, errors, exportJWK, generateKeyPair, type JWTVerifyGetKey, type KeyLike } from 'jose';
import type { JwtAuthSettings } from '../../../src/config/auth';
import { RetriableError, ServiceError } from '../../../src/contract/errors';
import { createJwtAuthenticator, type TokenKeys } from '../../../src/security/jwt-authenticator';
import { JWKS_ALGORITHMS, SECRET_ALGORITHMS } from '../../../src/security/token-keys';
import { bearerToken, callerFromClaims, claimedCustomerId, VerifiedTokens } from '../../../src/security/token';

const settings: JwtAuthSettings = {
  mode: 'jwt',
  keys: { kind: 'jwks-file', file: 'unused' },
  issuer: 'https://idp.example',
  audience: 'wholesale-portin-balance',
  clockToleranceSeconds: 30,
  customerClaim: 'wholesaleCustomerId',
};
const NOW = new Date('2026-11-21T10:00:00Z');
const nowSeconds = NOW.getTime() / 1000;
const SECRET = new TextEncoder().encode('an-hs256-shared-secret-of-32-bytes!');

interface Claims {
  iss?: string;
  aud?: string;
  exp?: number;
  nbf?: number;
  customer?: unknown;
}

let es256: { privateKey: KeyLike; publicKey: KeyLike };
let rs256: { privateKey: KeyLike; publicKey: KeyLike };
let stranger: { privateKey: KeyLike; publicKey: KeyLike };
let jwks: JWTVerifyGetKey;

beforeAll(async () => {
  es256 = await generateKeyPair('ES256');
  rs256 = await generateKeyPair('RS256');
  stranger = await generateKeyPair('ES256');
  jwks = createLocalJWKSet({
    keys: [
      { ...(await exportJWK(es256.publicKey)), kid: 'ec-1', alg: 'ES256' },
      { ...(await exportJWK(rs256.publicKey)), kid: 'rsa-1', alg: 'RS256' },
    ],
  });
});

function sign(key: KeyLike | Uint8Array, alg: string, kid: string | undefined, claims: Claims = {}): Promise<string> {
  const payload: Record<string, unknown> = { sub: 'order-system' };
  if (claims.customer !== null) payload.wholesaleCustomerId = claims.customer ?? 'P1';
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg, kid })
    .setIssuer(claims.iss ?? settings.issuer)
    .setAudience(claims.aud ?? settings.audience)
    .setIssuedAt(nowSeconds);
  if (claims.exp !== -1) jwt.setExpirationTime(claims.exp ?? nowSeconds + 600);
  if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
  return jwt.sign(key);
}

const bearer = (token: string) => `Bearer ${token}`;

async function outcome(authenticate: () => Promise<unknown>): Promise<string> {
  try {
    const caller = (await authenticate()) as { customerId: string };
    return `caller ${caller.customerId}`;
  } catch (error) {
    if (error instanceof ServiceError) return `${error.code}: ${error.message.replace('The command carries no valid credentials: ', '')}`;
    if (error instanceof RetriableError) return 'retriable';
    throw error;
  }
}

describe('JWT authenticator', () => {
  const withJwks = () => createJwtAuthenticator(settings, { key: jwks, algorithms: JWKS_ALGORITHMS }, () => NOW);

  it('accepts ES256 and RS256 tokens from the key set and names the caller from the customer claim', async () => {
    const auth = withJwks();
    expect(await auth.authenticate(bearer(await sign(es256.privateKey, 'ES256', 'ec-1')))).toEqual({ customerId: 'P1', subject: 'order-system' });
    expect(await outcome(async () => auth.authenticate(bearer(await sign(rs256.privateKey, 'RS256', 'rsa-1', { customer: 'B1' }))))).toBe('caller B1');
  });

  it.each<[string, () => Promise<string | undefined>, string]>([
    ['no header', async () => undefined, 'UNAUTHORIZED: no Authorization header'],
    ['another scheme', async () => 'Basic dXNlcjpwYXNz', 'UNAUTHORIZED: the Authorization header is not "Bearer <JWT>"'],
    ['not a JWT', async () => 'Bearer not-a-token', 'UNAUTHORIZED: the Authorization header is not "Bearer <JWT>"'],
    ['garbage parts', async () => 'Bearer aaa.bbb.ccc', 'UNAUTHORIZED: the token is malformed'],
    ['expired', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { exp: nowSeconds - 31 })), 'UNAUTHORIZED: the token has expired'],
    ['not valid yet', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { nbf: nowSeconds + 31 })), 'UNAUTHORIZED: the token is not valid yet'],
    ['without exp', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { exp: -1 })), 'UNAUTHORIZED: the token\'s "exp" claim is not accepted'],
    ['wrong issuer', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { iss: 'https://evil.example' })), 'UNAUTHORIZED: the token\'s "iss" claim is not accepted'],
    ['wrong audience', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { aud: 'another-service' })), 'UNAUTHORIZED: the token\'s "aud" claim is not accepted'],
    ['signed by an unknown key with a known kid', async () => bearer(await sign(stranger.privateKey, 'ES256', 'ec-1')), 'UNAUTHORIZED: the token is not signed by a trusted key'],
    ['signed by an unknown kid', async () => bearer(await sign(stranger.privateKey, 'ES256', 'ec-9')), 'UNAUTHORIZED: the token is not signed by a trusted key'],
    ['HS256 against a key set (alg confusion)', async () => bearer(await sign(SECRET, 'HS256', 'ec-1')), 'UNAUTHORIZED: the token is signed with an algorithm that is not accepted'],
    [
      'alg none',
      async () =>
        bearer(
          `${new UnsecuredJWT({ wholesaleCustomerId: 'P1' })
            .setIssuer(settings.issuer)
            .setAudience(settings.audience)
            .setExpirationTime(nowSeconds + 60)
            .encode()}sig`,
        ),
      'UNAUTHORIZED: the token is signed with an algorithm that is not accepted',
    ],
    ['no customer claim', async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { customer: null })), 'UNAUTHORIZED: the token has no valid "wholesaleCustomerId" claim'],
    [
      'a customer claim that is no node id',
      async () => bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { customer: 'a b' })),
      'UNAUTHORIZED: the token has no valid "wholesaleCustomerId" claim',
    ],
    [
      'tampered payload',
      async () => {
        const [head, , sig] = (await sign(es256.privateKey, 'ES256', 'ec-1')).split('.');
        const forged = Buffer.from(JSON.stringify({ wholesaleCustomerId: 'P2', iss: settings.issuer, aud: settings.audience, exp: nowSeconds + 600 })).toString('base64url');
        return bearer(`${head}.${forged}.${sig}`);
      },
      'UNAUTHORIZED: the token is not signed by a trusted key',
    ],
  ])('refuses %s', async (_name, header, expected) => {
    const auth = withJwks();
    const value = await header();
    expect(await outcome(() => auth.authenticate(value))).toBe(expected);
  });

  it('tolerates a little clock skew on exp and nbf', async () => {
    const auth = withJwks();
    expect(await outcome(async () => auth.authenticate(bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { exp: nowSeconds - 20, nbf: nowSeconds + 20 }))))).toBe('caller P1');
  });

  it('HS256 with a shared secret; asymmetric tokens are refused there', async () => {
    const auth = createJwtAuthenticator(settings, { key: SECRET, algorithms: SECRET_ALGORITHMS }, () => NOW);
    expect(await outcome(async () => auth.authenticate(bearer(await sign(SECRET, 'HS256', undefined))))).toBe('caller P1');
    expect(await outcome(async () => auth.authenticate(bearer(await sign(new TextEncoder().encode('x'.repeat(40)), 'HS256', undefined))))).toBe(
      'UNAUTHORIZED: the token is not signed by a trusted key',
    );
    expect(await outcome(async () => auth.authenticate(bearer(await sign(es256.privateKey, 'ES256', 'ec-1'))))).toMatch(/^UNAUTHORIZED: the token is signed with an algorithm/);
  });

  it('verifies a token once and remembers it until it expires', async () => {
    let lookups = 0;
    let now = NOW;
    const keys: TokenKeys = { key: (header, token) => (lookups++, jwks(header, token)), algorithms: JWKS_ALGORITHMS };
    const auth = createJwtAuthenticator({ ...settings, clockToleranceSeconds: 0 }, keys, () => now);
    const token = bearer(await sign(es256.privateKey, 'ES256', 'ec-1', { exp: nowSeconds + 60 }));
    expect(auth.knows(token)).toBe(false);
    await auth.authenticate(token);
    expect(auth.knows(token)).toBe(true); // what load shedding asks: no signature check needed for it
    await auth.authenticate(token);
    expect(lookups).toBe(1);
    now = new Date(NOW.getTime() + 61_000);
    expect(auth.knows(token)).toBe(false);
    expect(await outcome(() => auth.authenticate(token))).toBe('UNAUTHORIZED: the token has expired');
    expect(lookups).toBe(2);
  });

  it('an unreachable or broken key source is an infrastructure failure (retried), not a refusal', async () => {
    const token = bearer(await sign(es256.privateKey, 'ES256', 'ec-1'));
    for (const failure of [new errors.JWKSTimeout(), new errors.JWKSInvalid('not a key set'), new Error('connect ECONNREFUSED')]) {
      const auth = createJwtAuthenticator(settings, { key: async () => Promise.reject(failure), algorithms: JWKS_ALGORITHMS }, () => NOW);
      expect(await outcome(() => auth.authenticate(token))).toBe('retriable');
    }
  });
});

describe('token helpers', () => {
  it('reads "Bearer <JWT>" case-insensitively and nothing else', () => {
    expect(bearerToken('Bearer a.b.c')).toBe('a.b.c');
    expect(bearerToken('bearer  a.b.c ')).toBe('a.b.c');
    expect([bearerToken(undefined), bearerToken('Bearer a.b'), bearerToken('Bearer a.b.c d'), bearerToken('Token a.b.c')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('takes the caller from the configured claim', () => {
    expect(callerFromClaims({ partner: 'P1', sub: 's' }, 'partner')).toEqual({ customerId: 'P1', subject: 's' });
    expect([callerFromClaims({ partner: 7 }, 'partner'), callerFromClaims({ partner: 'x'.repeat(65) }, 'partner'), callerFromClaims({}, 'partner')]).toEqual([undefined, undefined, undefined]);
  });

  it('forgets the oldest verified token when full', () => {
    const cache = new VerifiedTokens(2);
    cache.put('a', { customerId: 'A' }, 1000);
    cache.put('b', { customerId: 'B' }, 1000);
    cache.put('c', { customerId: 'C' }, 1000);
    expect([cache.get('a', 0), cache.get('b', 0)?.customerId, cache.get('c', 0)?.customerId, cache.size]).toEqual([undefined, 'B', 'C', 2]);
    expect(cache.get('b', 1000)).toBeUndefined();
  });

  it('reads the customer a token claims without verifying it (to account refusals only), else nothing', async () => {
    const forged = `${(await sign(stranger.privateKey, 'ES256', 'ec-1', { customer: 'P9' })).split('.').slice(0, 2).join('.')}.AAAA`;
    expect(claimedCustomerId(bearer(forged), 'wholesaleCustomerId')).toBe('P9');
    expect([claimedCustomerId(undefined, 'wholesaleCustomerId'), claimedCustomerId('Bearer aaa.bbb.ccc', 'wholesaleCustomerId'), claimedCustomerId(bearer(forged), 'sub')]).toEqual([
      undefined,
      undefined,
      'order-system',
    ]);
  });
});

describe('JWT authenticator under a flood of forged tokens', () => {
  it('keeps a verified token verified: forged tokens never enter the cache, so they cannot evict it', async () => {
    let keyLookups = 0;
    const counting: JWTVerifyGetKey = (header, token) => (keyLookups++, jwks(header, token));
    const auth = createJwtAuthenticator(settings, { key: counting, algorithms: JWKS_ALGORITHMS }, () => NOW);
    const valid = bearer(await sign(es256.privateKey, 'ES256', 'ec-1'));
    await auth.authenticate(valid);
    const claim = (await sign(es256.privateKey, 'ES256', 'ec-1')).split('.').slice(0, 2).join('.');
    for (let i = 0; i < 10_050; i++) {
      await expect(auth.authenticate(`Bearer ${claim}.forged${i}`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const lookupsAfterFlood = keyLookups;
    expect(await auth.authenticate(valid)).toEqual({ customerId: 'P1', subject: 'order-system' });
    expect(keyLookups).toBe(lookupsAfterFlood); // answered from the cache: no signature check again
  });
});
