import type { AuthSettings } from '../config/auth';
import { isServiceError } from '../contract/errors';
import type { Authenticator } from '../security/access';
import type { CustomerHierarchy } from '../security/hierarchy';
import { loadHierarchyFile, loadOptionalHierarchyFile } from '../security/hierarchy-file';
import { createJwtAuthenticator, openAuthenticator } from '../security/jwt-authenticator';
import { bearerToken } from '../security/token';
import { tokenKeysFrom } from '../security/token-keys';
import { GatewayError } from './errors';

/** Who a request acts for: the partner whose client sends it and reads its reply, and the token passed on to the service. */
export interface GatewayCaller {
  /** Undefined only with AUTH_MODE=none for a node the hierarchy does not know (the legacy shared reply topics). */
  partnerId: string | undefined;
  token: string | undefined;
}

export type CallerResolver = (authorization: string | undefined, wholesaleCustomerId: string | undefined) => Promise<GatewayCaller>;

/**
 * The caller of a request, decided before anything is sent. With AUTH_MODE=jwt the token is verified as the
 * service verifies it (the same keys, issuer, audience and claim) and names the partner; a bad token is
 * 401 here and never reaches Kafka. What the caller may do is still the service's decision: the token
 * travels with the command. With AUTH_MODE=none the wholesaleCustomerId header picks the partner.
 */
export function callerResolver(authenticator: Authenticator, hierarchy: CustomerHierarchy | undefined, mode: AuthSettings['mode']): CallerResolver {
  if (mode === 'none') {
    return async (authorization, wholesaleCustomerId) => ({
      partnerId: wholesaleCustomerId === undefined ? undefined : hierarchy?.node(wholesaleCustomerId)?.partnerId,
      token: bearerToken(authorization),
    });
  }
  return async (authorization) => {
    let customerId: string | undefined;
    try {
      ({ customerId } = await authenticator.authenticate(authorization));
    } catch (error) {
      if (isServiceError(error)) throw new GatewayError('UNAUTHORIZED', `${error.message}; nothing was sent`);
      throw new GatewayError('UNAVAILABLE', 'The token keys cannot be read now; retry later');
    }
    const partnerId = hierarchy?.node(customerId)?.partnerId;
    if (partnerId === undefined) throw new GatewayError('UNAUTHORIZED', 'The command carries no valid credentials: the token names no known customer; nothing was sent');
    return { partnerId, token: bearerToken(authorization) };
  };
}

/** The resolver of the configured AUTH_* settings and customer hierarchy (a missing hierarchy file stops AUTH_MODE=jwt at start). */
export function callerResolverFor(auth: AuthSettings, customersFile: string): CallerResolver {
  if (auth.mode === 'none') return callerResolver(openAuthenticator, loadOptionalHierarchyFile(customersFile), 'none');
  return callerResolver(createJwtAuthenticator(auth, tokenKeysFrom(auth.keys)), loadHierarchyFile(customersFile), 'jwt');
}
