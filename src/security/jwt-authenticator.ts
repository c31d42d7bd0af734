import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyLike } from 'jose';
import { RetriableError, ServiceError } from '../contract/errors';
import type { JwtAuthSettings } from '../config/auth';
import type { Authenticator, Caller } from './access';
import { bearerToken, callerFromClaims, VerifiedTokens } from './token';

/** The keys tokens are checked against, and the only algorithms accepted with them (no "alg" confusion). */
export interface TokenKeys {
  key: JWTVerifyGetKey | KeyLike | Uint8Array;
  algorithms: string[];
}

/** jose failures that say "the key source is unreachable or broken", not "this token is bad": retried. */
const KEY_SOURCE_FAILURES = new Set([errors.JWKSTimeout.code, errors.JWKSInvalid.code, errors.JOSEError.code]);

const unauthorized = (reason: string) => new ServiceError('UNAUTHORIZED', `The command carries no valid credentials: ${reason}`);

function reasonOf(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === 'nbf' ? 'the token is not valid yet' : `the token's "${error.claim}" claim is not accepted`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) return 'the token is not signed by a trusted key';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'the token is signed with an algorithm that is not accepted';
  return 'the token is malformed';
}

/**
 * AUTH_MODE=jwt: `Authorization: Bearer <JWT>` verified with jose — signature with the configured keys and
 * algorithms, exp (required), nbf, iss and aud with a small clock tolerance — and the customer claim read.
 * A verified token is remembered until it expires, so a client's token costs one signature check.
 */
export function createJwtAuthenticator(settings: JwtAuthSettings, keys: TokenKeys, clock: () => Date = () => new Date()): Authenticator {
  const verified = new VerifiedTokens();
  return {
    knows(authorization) {
      const token = authorization === undefined ? undefined : bearerToken(authorization);
      return token !== undefined && verified.get(token, clock().getTime()) !== undefined;
    },
    async authenticate(authorization) {
      if (authorization === undefined) throw unauthorized('no Authorization header');
      const token = bearerToken(authorization);
      if (token === undefined) throw unauthorized('the Authorization header is not "Bearer <JWT>"');
      const now = clock();
      const known = verified.get(token, now.getTime());
      if (known) return known;
      const options = {
        algorithms: keys.algorithms,
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: settings.clockToleranceSeconds,
        requiredClaims: ['exp'],
        currentDate: now,
      };
      let payload: JWTPayload;
      try {
        ({ payload } = typeof keys.key === 'function' ? await jwtVerify(token, keys.key, options) : await jwtVerify(token, keys.key, options));
      } catch (error) {
        if (!(error instanceof errors.JOSEError) || KEY_SOURCE_FAILURES.has(error.code)) {
          throw new RetriableError(`token keys unavailable: ${(error as Error)?.message ?? error}`, { cause: error });
        }
        throw unauthorized(reasonOf(error));
      }
      const caller: Caller | undefined = callerFromClaims(payload, settings.customerClaim);
      if (!caller) throw unauthorized(`the token has no valid "${settings.customerClaim}" claim`);
      verified.put(token, caller, payload.exp! * 1000);
      return caller;
    },
  };
}

/** AUTH_MODE=none: every command is accepted without a token (local work only). */
export const openAuthenticator: Authenticator = { authenticate: async () => ({ customerId: undefined }), knows: () => true };
