import {
  AclOperations,
  AclPermissionTypes,
  ResourcePatternTypes,
  ResourceTypes,
  type Acl,
  type AclFilter,
  type AclOperationValue,
  type Admin,
  type ResourcePatternTypeValue,
  type ResourceTypeValue,
} from '@platformatic/kafka';
import type { AclOperation, AclPatternType, AclResourceType, AclRule } from '../../security/kafka-acls';

/** Kafka's ACL calls (@platformatic/kafka's Admin) in terms of the pure AclRule: always ALLOW, any host. */
const RESOURCE: Record<AclResourceType, ResourceTypeValue> = {
  topic: ResourceTypes.TOPIC,
  group: ResourceTypes.GROUP,
  cluster: ResourceTypes.CLUSTER,
  transactionalId: ResourceTypes.TRANSACTIONAL_ID,
};
const PATTERN: Record<AclPatternType, ResourcePatternTypeValue> = {
  literal: ResourcePatternTypes.LITERAL,
  prefixed: ResourcePatternTypes.PREFIXED,
};
const OPERATION: Record<AclOperation, AclOperationValue> = {
  read: AclOperations.READ,
  write: AclOperations.WRITE,
  describe: AclOperations.DESCRIBE,
  describeConfigs: AclOperations.DESCRIBE_CONFIGS,
  create: AclOperations.CREATE,
  delete: AclOperations.DELETE,
  alter: AclOperations.ALTER,
  clusterAction: AclOperations.CLUSTER_ACTION,
};

const reverse = <K extends string, V extends number>(map: Record<K, V>): Map<number, K> => new Map(Object.entries(map).map(([key, value]) => [value as number, key as K]));
const RESOURCE_OF = reverse(RESOURCE);
const PATTERN_OF = reverse(PATTERN);
const OPERATION_OF = reverse(OPERATION);

const ANY_HOST = '*';

function toAcl(rule: AclRule): Acl {
  return {
    resourceType: RESOURCE[rule.resourceType],
    resourceName: rule.resourceName,
    resourcePatternType: PATTERN[rule.patternType],
    principal: rule.principal,
    host: ANY_HOST,
    operation: OPERATION[rule.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

/** The rule an ACL binding expresses, when an AclRule can express it (ALLOW, any host, known types). */
function toRule(acl: Acl): AclRule | undefined {
  const resourceType = RESOURCE_OF.get(acl.resourceType);
  const patternType = PATTERN_OF.get(acl.resourcePatternType);
  const operation = OPERATION_OF.get(acl.operation);
  if (!resourceType || !patternType || !operation || acl.host !== ANY_HOST || acl.permissionType !== AclPermissionTypes.ALLOW) return undefined;
  return { principal: acl.principal, resourceType, patternType, resourceName: acl.resourceName, operation };
}

/** Every ACL binding on the cluster that an AclRule can express (ALLOW, any host); others are left out. */
export async function describeRules(admin: Admin): Promise<AclRule[]> {
  const filter: AclFilter = {
    resourceType: ResourceTypes.ANY,
    resourceName: null,
    resourcePatternType: ResourcePatternTypes.ANY,
    principal: null,
    host: null,
    operation: AclOperations.ANY,
    permissionType: AclPermissionTypes.ALLOW,
  };
  const resources = await admin.describeAcls({ filter });
  return resources.flatMap(({ acls, ...target }) => acls.flatMap((permission) => toRule({ ...target, ...permission }) ?? []));
}

export const ruleKey = (rule: AclRule): string => [rule.principal, rule.resourceType, rule.patternType, rule.resourceName, rule.operation].join('\u0000');

/** Creates the rules not there yet (Kafka would accept duplicates silently; this says which were new). */
export async function grantRules(admin: Admin, rules: readonly AclRule[]): Promise<AclRule[]> {
  const existing = new Set((await describeRules(admin)).map(ruleKey));
  const missing = rules.filter((rule) => !existing.has(ruleKey(rule)));
  if (missing.length > 0) await admin.createAcls({ creations: missing.map(toAcl) });
  return missing;
}

/**
 * Deletes exactly these rules; returns the ones that existed. A filter the broker refuses fails the call
 * (the client throws on any error code in the answer).
 */
export async function revokeRules(admin: Admin, rules: readonly AclRule[]): Promise<AclRule[]> {
  if (rules.length === 0) return [];
  const deleted = await admin.deleteAcls({ filters: rules.map(toAcl) });
  const deletedKeys = new Set(deleted.flatMap((acl) => toRule(acl) ?? []).map(ruleKey));
  return rules.filter((rule) => deletedKeys.has(ruleKey(rule)));
}
