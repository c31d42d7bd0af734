import { transactionalIdPrefix } from '../../config/kafka';
import type { Admin } from '@platformatic/kafka';
import type { TopicRole } from '../../contract/topics';
import { checkPrincipal, partnerAcls, partnerAclsToRemove, partnerTopicNames, provisionedPartners, serviceAcls, type AclRule, type ProvisionedPartner } from '../../security/kafka-acls';
import { PARTNER_COMMAND_ROLES, partnerNamespace, partnerTopics, type PartnerCommandRole } from '../../contract/partner-topics';
import { describeRules, grantRules, revokeRules } from './acl-admin';
import { ensureTopics } from './topics';

/**
 * `wholesale admin …`: a partner's topics and ACLs, and the service's ACLs, on the cluster. Idempotent:
 * adding what is there changes nothing; each call says what it changed.
 */
export interface ProvisioningSettings {
  /** For the partner's topics it creates. */
  kafka: { topicPartitions: number; topicReplicationFactor: number };
  topics: Readonly<Record<TopicRole, string>>;
  /** The service's consumer group and client id (KAFKA_CLIENT_ID: its transactional ids), for its ACLs. */
  groupId: string;
  serviceClientId: string;
  partnerTopicPrefix: string;
}

export interface Change {
  /** The rules the partner or service should hold (add) or that were looked for (remove). */
  readonly rules: AclRule[];
  /** Of those, the ones this call created or deleted. */
  readonly changedRules: AclRule[];
  readonly changedTopics: string[];
}

const commandTopics = (settings: ProvisioningSettings): string[] => [settings.topics.portinCommands, settings.topics.balanceCommands];

export function partnerRules(settings: ProvisioningSettings, partnerId: string, principal: string): AclRule[] {
  return partnerAcls({ principal, partnerId, partnerPrefix: settings.partnerTopicPrefix, commandTopics: commandTopics(settings) });
}

/**
 * The partitions a partner's command topic gets: those of the shared command topic of its role when that
 * exists (a partner moving between them keeps the same spread), else TOPIC_PARTITIONS.
 */
async function commandTopicPartitions(admin: Admin, settings: ProvisioningSettings, role: PartnerCommandRole): Promise<number> {
  const shared = settings.topics[role];
  if (!(await admin.listTopics()).includes(shared)) return settings.kafka.topicPartitions;
  return (await admin.metadata({ topics: [shared] })).topics.get(shared)?.partitionsCount ?? settings.kafka.topicPartitions;
}

/** Creates the partner's six topics (when missing) and its ACLs (when missing). */
export async function addPartner(admin: Admin, settings: ProvisioningSettings, partnerId: string, principal: string): Promise<Change> {
  const rules = partnerRules(settings, partnerId, principal);
  const own = partnerTopics(settings.partnerTopicPrefix, partnerId);
  const commandTopics = new Set(PARTNER_COMMAND_ROLES.map((role) => own[role]));
  const others = partnerTopicNames(settings.partnerTopicPrefix, partnerId).filter((topic) => !commandTopics.has(topic));
  const changedTopics = await ensureTopics(admin, others, settings.kafka.topicPartitions, settings.kafka.topicReplicationFactor);
  for (const role of PARTNER_COMMAND_ROLES) {
    const partitions = await commandTopicPartitions(admin, settings, role);
    changedTopics.push(...(await ensureTopics(admin, [own[role]], partitions, settings.kafka.topicReplicationFactor)));
  }
  const changedRules = await grantRules(admin, rules);
  return { rules, changedRules, changedTopics };
}

/**
 * Takes the partner's rights away: from `principal`, or from every principal holding its namespace.
 * With `deleteTopics`, its topics (and the records on them) go too.
 */
export async function removePartner(admin: Admin, settings: ProvisioningSettings, partnerId: string, options: { principal?: string; deleteTopics: boolean }): Promise<Change> {
  const namespace = partnerNamespace(settings.partnerTopicPrefix, partnerId);
  const existing = await describeRules(admin);
  const principals =
    options.principal !== undefined
      ? [checkPrincipal(options.principal)]
      : [...new Set(existing.filter((rule) => rule.resourceType === 'topic' && rule.patternType === 'prefixed' && rule.resourceName === namespace).map((rule) => rule.principal))];
  const rules = principals.flatMap((principal) => partnerAclsToRemove({ principal, partnerId, partnerPrefix: settings.partnerTopicPrefix, commandTopics: commandTopics(settings) }, existing));
  const changedRules = await revokeRules(admin, rules);
  let changedTopics: string[] = [];
  if (options.deleteTopics) {
    changedTopics = (await admin.listTopics()).filter((topic) => topic.startsWith(namespace)).sort();
    if (changedTopics.length > 0) await admin.deleteTopics({ topics: changedTopics });
  }
  return { rules, changedRules, changedTopics };
}

export async function listPartners(admin: Admin, settings: ProvisioningSettings): Promise<ProvisionedPartner[]> {
  const [rules, topics] = await Promise.all([describeRules(admin), admin.listTopics()]);
  return provisionedPartners(rules, topics, settings.partnerTopicPrefix);
}

/** What the service's grant covers beyond reading and writing its topics (serviceAcls). */
export interface ServiceGrant {
  createsTopics: boolean;
}

export function serviceRules(settings: ProvisioningSettings, principal: string, grant: ServiceGrant): AclRule[] {
  return serviceAcls({
    principal,
    topics: settings.topics,
    groupId: settings.groupId,
    partnerPrefix: settings.partnerTopicPrefix,
    ...grant,
    transactionalIdPrefix: transactionalIdPrefix(settings.serviceClientId),
  });
}

export async function grantServiceAcls(admin: Admin, settings: ProvisioningSettings, principal: string, grant: ServiceGrant): Promise<Change> {
  const rules = serviceRules(settings, principal, grant);
  return { rules, changedRules: await grantRules(admin, rules), changedTopics: [] };
}
