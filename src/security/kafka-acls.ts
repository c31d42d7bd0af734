import type { TopicRole } from '../contract/topics';
import { PARTNER_COMMAND_ROLES, partnerNamespace, partnerTopics } from '../contract/partner-topics';

/**
 * What each Kafka principal may do, as a list of ALLOW rules (host `*`). Pure: the admin adapter
 * (src/adapters/kafka/acl-admin.ts) turns the list into the Kafka client's createAcls / deleteAcls calls, and
 * docs/security.md prints the same lists. Kafka's authorizer denies whatever no rule allows.
 */
export type AclResourceType = 'topic' | 'group' | 'cluster' | 'transactionalId';
export type AclPatternType = 'literal' | 'prefixed';
export type AclOperation = 'read' | 'write' | 'describe' | 'describeConfigs' | 'create' | 'delete' | 'alter' | 'clusterAction';

export interface AclRule {
  readonly principal: string;
  readonly resourceType: AclResourceType;
  readonly patternType: AclPatternType;
  readonly resourceName: string;
  readonly operation: AclOperation;
}

/** The one cluster resource name Kafka knows. */
export const CLUSTER_RESOURCE = 'kafka-cluster';

/** `User:<name>`; the name as SCRAM and Kafka's principal builder accept it without quoting. */
export const PRINCIPAL = /^User:[A-Za-z0-9._@+-]{1,128}$/;

export function checkPrincipal(principal: string): string {
  if (!PRINCIPAL.test(principal)) throw new Error(`principal ${JSON.stringify(principal)} must be User:<name> (letters, digits, . _ @ + -)`);
  return principal;
}

type Resource = Pick<AclRule, 'resourceType' | 'patternType' | 'resourceName'>;
const topic = (resourceName: string): Resource => ({ resourceType: 'topic', patternType: 'literal', resourceName });
const topicPrefix = (resourceName: string): Resource => ({ resourceType: 'topic', patternType: 'prefixed', resourceName });

function allow(principal: string, resources: readonly Resource[], operations: readonly AclOperation[]): AclRule[] {
  return resources.flatMap((resource) => operations.map((operation) => ({ principal, ...resource, operation })));
}

export interface PartnerAclInput {
  readonly principal: string;
  readonly partnerId: string;
  /** PARTNER_TOPIC_PREFIX, `wholesale.partner.` by default. */
  readonly partnerPrefix: string;
  /** The two command topics (TOPIC_PORTIN_COMMANDS, TOPIC_BALANCE_COMMANDS). */
  readonly commandTopics: readonly string[];
}

/**
 * A partner's rights: send commands on its own command topics (in transactions, under transactional ids
 * of its namespace) and on the shared ones, read its own namespace (its command, reply and event topics)
 * with consumer groups named in it. Nothing else: no Create, no other partner's namespace, no operator
 * event topic, no DLQ, no NP topic, and no Read on the shared command topics (they carry every partner's
 * commands).
 */
export function partnerAcls({ principal, partnerId, partnerPrefix, commandTopics }: PartnerAclInput): AclRule[] {
  checkPrincipal(principal);
  const namespace = partnerNamespace(partnerPrefix, partnerId);
  const own = partnerTopics(partnerPrefix, partnerId);
  return [
    ...allow(principal, commandTopics.map(topic), ['write', 'describe']),
    ...allow(
      principal,
      PARTNER_COMMAND_ROLES.map((role) => topic(own[role])),
      ['write', 'describe'],
    ),
    ...allow(principal, [topicPrefix(namespace)], ['read', 'describe']),
    ...allow(principal, [{ resourceType: 'group', patternType: 'prefixed', resourceName: namespace }], ['read']),
    ...allow(principal, [{ resourceType: 'transactionalId', patternType: 'prefixed', resourceName: namespace }], ['write', 'describe']),
  ];
}

/** The six topics `admin partner add` creates. */
export function partnerTopicNames(partnerPrefix: string, partnerId: string): string[] {
  return Object.values(partnerTopics(partnerPrefix, partnerId));
}

export interface ServiceAclInput {
  readonly principal: string;
  readonly topics: Readonly<Record<TopicRole, string>>;
  /** KAFKA_GROUP_ID. */
  readonly groupId: string;
  readonly partnerPrefix: string;
  /** False when the operator creates the service's topics beforehand: then it needs no Create. */
  readonly createsTopics: boolean;
  /** Its workers' transactional ids begin with this (exactly-once outputs: src/config/kafka.ts). */
  readonly transactionalIdPrefix: string;
}

const SERVICE_READS: readonly TopicRole[] = ['portinCommands', 'balanceCommands', 'npResponses'];
const SERVICE_WRITES: readonly TopicRole[] = ['portinReplies', 'balanceReplies', 'portinEvents', 'balanceEvents', 'deadLetters', 'npRequests'];

/**
 * The service's least privilege: read its command and NP-response topics in its group, read every
 * partner's namespace (the partners' own command topics), write its reply, event, DLQ and NP-request topics
 * and every partner's namespace (replies and events), in transactions under
 * its transactional ids; Create on its own topics only when it creates them at start (partners' topics come
 * from `admin partner add`).
 */
export function serviceAcls({ principal, topics, groupId, partnerPrefix, createsTopics, transactionalIdPrefix }: ServiceAclInput): AclRule[] {
  checkPrincipal(principal);
  const own = [...SERVICE_READS, ...SERVICE_WRITES].map((role) => topic(topics[role]));
  return [
    ...allow(
      principal,
      SERVICE_READS.map((role) => topic(topics[role])),
      ['read', 'describe'],
    ),
    ...allow(principal, [{ resourceType: 'group', patternType: 'literal', resourceName: groupId }], ['read']),
    // DescribeConfigs: a transaction is not given a message above its topic's max.message.bytes (topic-size-limits.ts)
    ...allow(
      principal,
      SERVICE_WRITES.map((role) => topic(topics[role])),
      ['write', 'describe', 'describeConfigs'],
    ),
    // Read: every partner's own command topics lie there (no ACL pattern can name only those)
    ...allow(principal, [topicPrefix(partnerPrefix)], ['read', 'write', 'describe', 'describeConfigs']),
    ...allow(principal, [{ resourceType: 'transactionalId', patternType: 'prefixed', resourceName: transactionalIdPrefix }], ['write', 'describe']),
    ...(createsTopics ? allow(principal, own, ['create']) : []),
  ];
}

/**
 * What the principal running `wholesale admin partner …` needs: manage ACLs (Alter and Describe on the
 * cluster) and create, delete and list the partners' topics. It never reads or writes records.
 */
export function provisionerAcls(principal: string, partnerPrefix: string): AclRule[] {
  checkPrincipal(principal);
  return [
    ...allow(principal, [{ resourceType: 'cluster', patternType: 'literal', resourceName: CLUSTER_RESOURCE }], ['alter', 'describe']),
    ...allow(principal, [topicPrefix(partnerPrefix)], ['create', 'delete', 'describe']),
  ];
}

export interface ProvisionedPartner {
  readonly partnerId: string;
  readonly principals: string[];
  readonly topics: string[];
}

/**
 * The partners found on the cluster: a PREFIXED topic rule on `<prefix><id>.` names a partner and its
 * principal; a topic in a namespace without such a rule still shows (principals empty: topics left over).
 */
export function provisionedPartners(rules: readonly AclRule[], topicNames: readonly string[], partnerPrefix: string): ProvisionedPartner[] {
  const partners = new Map<string, { principals: Set<string>; topics: Set<string> }>();
  const entry = (partnerId: string) => partners.get(partnerId) ?? partners.set(partnerId, { principals: new Set(), topics: new Set() }).get(partnerId)!;
  const idOf = (name: string): string | undefined => {
    if (!name.startsWith(partnerPrefix)) return undefined;
    const rest = name.slice(partnerPrefix.length);
    const dot = rest.indexOf('.');
    return dot > 0 ? rest.slice(0, dot) : undefined;
  };
  for (const rule of rules) {
    const id = rule.resourceType === 'topic' && rule.patternType === 'prefixed' ? idOf(rule.resourceName) : undefined;
    if (id !== undefined && rule.resourceName === `${partnerPrefix}${id}.`) entry(id).principals.add(rule.principal);
  }
  for (const name of topicNames) {
    const id = idOf(name);
    if (id !== undefined) entry(id).topics.add(name);
  }
  return [...partners.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([partnerId, found]) => ({ partnerId, principals: [...found.principals].sort(), topics: [...found.topics].sort() }));
}

/**
 * The rules `admin partner remove` deletes for one principal: all of the partner's rules, except Write on
 * the shared command topics while the principal still holds another partner's namespace (one principal may
 * serve two partners; the shared command topics are shared).
 */
export function partnerAclsToRemove(input: PartnerAclInput, existing: readonly AclRule[]): AclRule[] {
  const namespace = partnerNamespace(input.partnerPrefix, input.partnerId);
  const servesAnother = existing.some(
    (rule) =>
      rule.principal === input.principal &&
      rule.resourceType === 'topic' &&
      rule.patternType === 'prefixed' &&
      rule.resourceName.startsWith(input.partnerPrefix) &&
      rule.resourceName !== namespace,
  );
  const rules = partnerAcls(input);
  return servesAnother ? rules.filter((rule) => rule.resourceName.startsWith(namespace)) : rules;
}

/** One rule as a line, e.g. `User:a ALLOW write topic wholesale.portin.commands.v1 (literal)`. */
export function describeRule(rule: AclRule): string {
  return `${rule.principal} ALLOW ${rule.operation} ${rule.resourceType} ${rule.resourceName} (${rule.patternType})`;
}
