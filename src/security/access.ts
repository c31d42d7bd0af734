import { ServiceError } from '../contract/errors';
import type { CustomerHierarchy } from './hierarchy';

/**
 * Who sent a command and what it may act for. The worker authenticates (the token names the caller's
 * node) and authorizes (the wholesaleCustomerId header must name a node of the caller's subtree) before
 * any handler runs; handlers then scope records with `canSee`. These interfaces are what the command
 * processor is given (ProcessorDeps), so it stays unit-testable without keys or Redis.
 */
export interface Caller {
  /** The node the token names, normally a partner root; undefined in AUTH_MODE=none. */
  readonly customerId: string | undefined;
  /** The token's subject (the calling system), for logs; never the token itself. */
  readonly subject?: string;
}

export interface Authenticator {
  /** Reads the Authorization header. Throws ServiceError UNAUTHORIZED; an unreachable key source throws RetriableError. */
  authenticate(authorization: string | undefined): Promise<Caller>;
  /** True when this header's token was verified already and is still valid: authenticating it costs no signature check. */
  knows(authorization: string | undefined): boolean;
}

/** What one command may act on. */
export interface CustomerScope {
  /** The node acted for: the header when given, else the caller's own node. Owner of records it creates. */
  readonly effectiveCustomerId: string | undefined;
  /** The partner (root) the command is accounted to: the rate-limit bucket. */
  readonly partnerId: string;
  /**
   * The partner whose own topics answer the command: the acting node's partner root when the hierarchy
   * knows the node (always, once authenticated). Undefined only in AUTH_MODE=none for a node the hierarchy
   * does not know: then the legacy shared reply topics.
   */
  readonly replyPartnerId: string | undefined;
  /** The effective node and every node below it: for membership checks inside Lua scripts. */
  readonly visibleCustomerIds: readonly string[];
  /** True when a record owned by `owner` lies in the effective node's subtree. */
  canSee: (owner: string | null | undefined) => boolean;
}

export interface Authorizer {
  /** Throws ServiceError FORBIDDEN when the requested node is outside the caller's subtree. */
  authorize(caller: Caller, requestedCustomerId: string | undefined): CustomerScope;
  /** The partner (root) of a verified caller's own node, when the hierarchy knows it: where its refusals are answered. */
  partnerOf(caller: Caller): string | undefined;
}

/** The partner's idempotency quota is spent: a change may replay its recorded outcome, not record a new one. */
export interface QuotaExhausted {
  /** Changes the partner holds recorded within the window. */
  held: number;
  quota: number;
  windowSeconds: number;
}

export interface Admission {
  allowed: boolean;
  /** When refused: how long until one more command would be admitted. */
  retryAfterMs: number;
  /** For an admitted change: set when it must not record a new outcome (PARTNER_OUTCOME_QUOTA). */
  quotaExhausted?: QuotaExhausted;
  /**
   * A repeat of a change this worker admitted before (same partner and command id): let in without charging
   * the rate or the quota again — it replays the first one's recorded outcome.
   */
  repeat?: boolean;
}

/**
 * A partner's command rate and, for changes, its idempotency quota (changes recorded within
 * IDEMPOTENCY_TTL_SECONDS), decided together before a command runs. The rate is counted by when the
 * partner sent each command (`sentAtMs`, its record's timestamp), so the service's own backlog is charged
 * where the partner sent it. A change is counted when admitted; one that then records nothing new (a
 * redelivery answered from its record, a refusal before it ran) is `uncount`ed, and a command answered from
 * a recorded outcome is `refund`ed its rate, both at that partner's next admission.
 */
export interface PartnerAdmission {
  /** `commandId`: a change's identity (commandIdOf), so a repeat of it is not charged again. */
  admit(partnerId: string, isChange: boolean, sentAtMs: number, commandId?: string): Promise<Admission>;
  uncount(partnerId: string): void;
  refund(partnerId: string, sentAtMs: number): void;
}

export const unlimited: PartnerAdmission = { admit: async () => ({ allowed: true, retryAfterMs: 0 }), uncount: () => undefined, refund: () => undefined };

const forbidden = () => new ServiceError('FORBIDDEN', 'The caller may not act for this wholesale customer');

function scopeOf(hierarchy: CustomerHierarchy, nodeId: string): CustomerScope {
  const node = hierarchy.node(nodeId)!;
  const visible = new Set(node.subtree);
  return {
    effectiveCustomerId: node.id,
    partnerId: node.partnerId,
    replyPartnerId: node.partnerId,
    visibleCustomerIds: node.subtree,
    canSee: (owner) => owner != null && visible.has(owner),
  };
}

/**
 * AUTH_MODE=jwt: the caller's node must exist, the header (when given) must name a node of its subtree.
 * The same refusal for "unknown node" and "someone else's node", so the reply never confirms a node exists.
 */
export function createHierarchyAuthorizer(hierarchy: CustomerHierarchy): Authorizer {
  return {
    authorize(caller, requested) {
      const own = hierarchy.node(caller.customerId);
      if (!own) throw forbidden();
      const effective = requested ?? own.id;
      if (!hierarchy.isWithin(effective, own.id)) throw forbidden();
      return scopeOf(hierarchy, effective);
    },
    partnerOf: (caller) => hierarchy.node(caller.customerId)?.partnerId,
  };
}

/**
 * AUTH_MODE=none (local work): nobody is refused; the header alone picks the node. A node the hierarchy
 * knows sees its subtree, any other value sees only records it owns itself (the behaviour before auth).
 */
export function createOpenAuthorizer(hierarchy: CustomerHierarchy | undefined): Authorizer {
  return {
    authorize(_caller, requested) {
      if (requested !== undefined && hierarchy?.node(requested)) return scopeOf(hierarchy, requested);
      const owner = requested ?? '';
      return {
        effectiveCustomerId: requested,
        partnerId: requested ?? '-',
        replyPartnerId: undefined,
        visibleCustomerIds: [owner],
        canSee: (candidate) => (candidate ?? '') === owner,
      };
    },
    partnerOf: () => undefined,
  };
}
