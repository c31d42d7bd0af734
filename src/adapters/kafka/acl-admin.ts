import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type AclEntry, type AclFilter } from 'kafkajs';
import type { AclOperation, AclPatternType, AclResourceType, AclRule } from '../../security/kafka-acls';

/** Kafka's ACL calls (kafkajs admin) in terms of the pure AclRule: always ALLOW, any host. */
const RESOURCE: Record<AclResourceType, AclResourceTypes> = {
  topic: AclResourceTypes.TOPIC,
  group: AclResourceTypes.GROUP,
  cluster: AclResourceTypes.CLUSTER,
};
const PATTERN: Record<AclPatternType, ResourcePatternTypes> = {
  literal: ResourcePatternTypes.LITERAL,
  prefixed: ResourcePatternTypes.PREFIXED,
};
const OPERATION: Record<AclOperation, AclOperationTypes> = {
  read: AclOperationTypes.READ,
  write: AclOperationTypes.WRITE,
  describe: AclOperationTypes.DESCRIBE,
  create: AclOperationTypes.CREATE,
  delete: AclOperationTypes.DELETE,
  alter: AclOperationTypes.ALTER,
};

const reverse = <K extends string, V extends number>(map: Record<K, V>): Map<number, K> =>
  new Map(Object.entries(map).map(([key, value]) => [value as number, key as K]));
const RESOURCE_OF = reverse(RESOURCE);
const PATTERN_OF = reverse(PATTERN);
const OPERATION_OF = reverse(OPERATION);

const ANY_HOST = '*';

function toEntry(rule: AclRule): AclEntry {
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

/** Every ACL binding on the cluster that an AclRule can express (ALLOW, any host); others are left out. */
export async function describeRules(admin: Admin): Promise<AclRule[]> {
  const filter: AclFilter = {
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ALLOW,
  };
  const { resources } = await admin.describeAcls(filter);
  return resources.flatMap((resource) =>
    resource.acls.flatMap((acl) => {
      const resourceType = RESOURCE_OF.get(resource.resourceType);
      const patternType = PATTERN_OF.get(resource.resourcePatternType);
      const operation = OPERATION_OF.get(acl.operation);
      if (!resourceType || !patternType || !operation || acl.host !== ANY_HOST) return [];
      return [{ principal: acl.principal, resourceType, patternType, resourceName: resource.resourceName, operation }];
    }),
  );
}

export const ruleKey = (rule: AclRule): string => [rule.principal, rule.resourceType, rule.patternType, rule.resourceName, rule.operation].join('\u0000');

/** Creates the rules not there yet (Kafka would accept duplicates silently; this says which were new). */
export async function grantRules(admin: Admin, rules: readonly AclRule[]): Promise<AclRule[]> {
  const existing = new Set((await describeRules(admin)).map(ruleKey));
  const missing = rules.filter((rule) => !existing.has(ruleKey(rule)));
  if (missing.length > 0) await admin.createAcls({ acl: missing.map(toEntry) });
  return missing;
}

/** Deletes exactly these rules; returns the ones that existed. */
export async function revokeRules(admin: Admin, rules: readonly AclRule[]): Promise<AclRule[]> {
  if (rules.length === 0) return [];
  const { filterResponses } = await admin.deleteAcls({ filters: rules.map(toEntry) });
  const failed = filterResponses.find((response) => response.errorCode !== 0);
  if (failed) throw new Error(`deleting ACLs failed: ${failed.errorMessage ?? `error code ${failed.errorCode}`}`);
  return rules.filter((_, i) => (filterResponses[i]?.matchingAcls.length ?? 0) > 0);
}
