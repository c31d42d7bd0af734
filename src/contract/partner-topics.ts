// Each partner's own namespace on Kafka. Kafka ACLs cannot filter records, so a partner may read only
// topics that hold nothing but its own records: its replies and the events of its subscriptions go to
// topics under `<prefix><partnerId>.`, and one PREFIXED ACL on that namespace grants the partner exactly
// its own topics (and its consumer groups, which use the same prefix). Billing and the operator keep the
// full event topics. The partner is the root of the acting node in the customer hierarchy.
// Its commands have topics there too: a transaction a partner leaves open holds back the readers of its
// partitions until it times out, so on its own topics it holds back nobody else.

export const DEFAULT_PARTNER_TOPIC_PREFIX = 'wholesale.partner.';

/** The command topics of a partner's namespace: only that partner writes them. */
export type PartnerCommandRole = 'portinCommands' | 'balanceCommands';

/** The topics of a partner's namespace: its commands, replies and events. */
export type PartnerTopicRole = PartnerCommandRole | 'portinReplies' | 'balanceReplies' | 'portinEvents' | 'balanceEvents';

const COMMAND_SUFFIX: Readonly<Record<PartnerCommandRole, string>> = {
  portinCommands: 'portin.commands.v1',
  balanceCommands: 'balance.commands.v1',
};

const SUFFIX: Readonly<Record<PartnerTopicRole, string>> = {
  ...COMMAND_SUFFIX,
  portinReplies: 'portin.replies.v1',
  balanceReplies: 'balance.replies.v1',
  portinEvents: 'portin.events.v1',
  balanceEvents: 'balance.events.v1',
};

export const PARTNER_TOPIC_ROLES = Object.keys(SUFFIX) as PartnerTopicRole[];
export const PARTNER_COMMAND_ROLES = Object.keys(COMMAND_SUFFIX) as PartnerCommandRole[];

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

/** Which partner's command topic `topic` is, and of which role; undefined for any other topic. */
export function partnerCommandTopicOf(prefix: string, topic: string): { partnerId: string; role: PartnerCommandRole } | undefined {
  if (!topic.startsWith(prefix)) return undefined;
  const rest = topic.slice(prefix.length);
  const dot = rest.indexOf('.');
  const partnerId = rest.slice(0, dot);
  const role = PARTNER_COMMAND_ROLES.find((candidate) => rest.slice(dot + 1) === COMMAND_SUFFIX[candidate]);
  return dot > 0 && role !== undefined && PARTNER_ID.test(partnerId) ? { partnerId, role } : undefined;
}
