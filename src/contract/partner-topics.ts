// Each partner's own namespace on Kafka. Kafka ACLs cannot filter records, so a partner may read only
// topics that hold nothing but its own records: its replies and the events of its subscriptions go to
// topics under `<prefix><partnerId>.`, and one PREFIXED ACL on that namespace grants the partner exactly
// its own topics (and its consumer groups, which use the same prefix). Billing and the operator keep the
// full event topics. The partner is the root of the acting node in the customer hierarchy.

export const DEFAULT_PARTNER_TOPIC_PREFIX = 'wholesale.partner.';

/** The partner-facing topic roles: what a partner may read. */
export type PartnerTopicRole = 'portinReplies' | 'balanceReplies' | 'portinEvents' | 'balanceEvents';

const SUFFIX: Readonly<Record<PartnerTopicRole, string>> = {
  portinReplies: 'portin.replies.v1',
  balanceReplies: 'balance.replies.v1',
  portinEvents: 'portin.events.v1',
  balanceEvents: 'balance.events.v1',
};

export const PARTNER_TOPIC_ROLES = Object.keys(SUFFIX) as PartnerTopicRole[];

/** A partner id usable inside a topic and group name (Kafka: letters, digits, . _ -). */
export const PARTNER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `<prefix><partnerId>.`: every topic and consumer group of the partner starts with it. */
export function partnerNamespace(prefix: string, partnerId: string): string {
  if (!PARTNER_ID.test(partnerId)) throw new Error(`partner id ${JSON.stringify(partnerId)} cannot name a topic (letters, digits, _ -; at most 64)`);
  return `${prefix}${partnerId}.`;
}

export function partnerTopic(prefix: string, partnerId: string, role: PartnerTopicRole): string {
  return `${partnerNamespace(prefix, partnerId)}${SUFFIX[role]}`;
}

export function partnerTopics(prefix: string, partnerId: string): Record<PartnerTopicRole, string> {
  return Object.fromEntries(PARTNER_TOPIC_ROLES.map((role) => [role, partnerTopic(prefix, partnerId, role)])) as Record<PartnerTopicRole, string>;
}

/** True when `topic` lies in the partner's namespace (a reply topic a requester may choose). */
export function isInPartnerNamespace(prefix: string, partnerId: string, topic: string): boolean {
  return PARTNER_ID.test(partnerId) && topic.startsWith(partnerNamespace(prefix, partnerId)) && topic.length > partnerNamespace(prefix, partnerId).length;
}
