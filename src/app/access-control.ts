import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import { createHierarchyAuthorizer, createOpenAuthorizer, type Authenticator, type Authorizer } from '../security/access';
import type { CustomerHierarchy } from '../security/hierarchy';
import { loadHierarchyFile, loadOptionalHierarchyFile } from '../security/hierarchy-file';
import { createJwtAuthenticator, openAuthenticator } from '../security/jwt-authenticator';
import { createRejectedBudget, type RejectedBudget } from '../security/rejected-budget';
import { claimedCustomerId } from '../security/token';
import { tokenKeysFrom } from '../security/token-keys';

/** Who may send commands and what they may act for (docs/security.md), given to the command processor. */
export interface AccessControl {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** Refused commands per claimed partner (in process; REJECTED_RATE_PER_SECOND, REJECTED_BURST). */
  rejectedBudget: RejectedBudget;
  /** The customer hierarchy (optional with AUTH_MODE=none): also who owns which partner topics. */
  hierarchy: CustomerHierarchy | undefined;
}

/**
 * Built first at start, so a bad key set or customer hierarchy stops the service before it connects.
 * Tokens are checked against the wall clock, never the handlers' (possibly simulated) clock.
 */
export function createAccessControl(config: ServiceConfig, log: Logger): AccessControl {
  const { auth } = config;
  if (auth.mode === 'none') {
    log.warn('AUTH_MODE=none: commands are NOT authenticated and any wholesaleCustomerId is accepted; use only for local work');
    const hierarchy = loadOptionalHierarchyFile(config.customersFile);
    return { authenticator: openAuthenticator, authorizer: createOpenAuthorizer(hierarchy), rejectedBudget: { take: () => true, spent: () => false }, hierarchy };
  }
  const hierarchy = loadHierarchyFile(config.customersFile);
  const authenticator = createJwtAuthenticator(auth, tokenKeysFrom(auth.keys));
  // A claim naming no known node falls in the one shared bucket: invented claims cannot grow the buckets.
  const claimedPartner = (authorization: string | undefined) => hierarchy.node(claimedCustomerId(authorization, auth.customerClaim))?.partnerId;
  log.info(
    { keys: auth.keys.kind, issuer: auth.issuer, audience: auth.audience, customerClaim: auth.customerClaim, customers: hierarchy.size, rateLimit: config.rateLimit },
    'commands are authenticated (AUTH_MODE=jwt)',
  );
  return { authenticator, authorizer: createHierarchyAuthorizer(hierarchy), rejectedBudget: createRejectedBudget(config.rejectedRate, claimedPartner), hierarchy };
}
