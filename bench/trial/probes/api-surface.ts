import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import { loadCandidate, type TrialClientName } from '../trial-clients';
import { brokers, clientsFromArgs, probeId, report, setupClient } from './support';

/**
 * Probes (f) and (g) on the public API of each client, against the real broker:
 * (f) a transaction — a transactional producer begins, sends a record and commits — and whether the API
 *     can put a consumer's offsets into it (sendOffsets / addOffset: consume-transform-produce, KIP-447);
 * (g) the ACL calls partner provisioning makes (createAcls, describeAcls, deleteAcls): present or not, and
 *     what the broker answers to describeAcls (a broker without an authorizer answers SECURITY_DISABLED —
 *     the call still went over the wire).
 */
type AnyClient = Record<string, unknown> & { [name: string]: any };
const has = (object: AnyClient, names: string[]) => Object.fromEntries(names.map((name) => [name, typeof object[name] === 'function']));
const errorOf = (error: unknown) => `${(error as { type?: string; code?: string }).type ?? (error as { code?: string }).code ?? ''} ${(error as Error).message}`.trim().slice(0, 200);

async function kafkajsProbe(topic: string): Promise<Record<string, unknown>> {
  const setup = await setupClient();
  const producer = setup.kafka.producer({ transactionalId: probeId('tx'), idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  let transaction: string;
  let offsetsInTransaction = 'sendOffsets({ consumerGroupId, topics }) on the transaction';
  try {
    const tx = await producer.transaction();
    await tx.send({ topic, messages: [{ value: 'in a transaction' }] });
    await tx.sendOffsets({ consumerGroupId: probeId('tx-group'), topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }] });
    await tx.commit();
    transaction = 'committed (send + sendOffsets)';
  } catch (error) {
    transaction = `failed: ${errorOf(error)}`;
    offsetsInTransaction += ' (see failure)';
  }
  await producer.disconnect();
  let describeAcls: string;
  try {
    const acls = await setup.admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourceName: topic, resourcePatternType: ResourcePatternTypes.LITERAL, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY });
    describeAcls = `answered (${acls.resources.length} resources)`;
  } catch (error) {
    describeAcls = `broker answered: ${errorOf(error)}`;
  }
  const acl = has(setup.admin as unknown as AnyClient, ['createAcls', 'describeAcls', 'deleteAcls']);
  await setup.close();
  return { transaction, offsetsInTransaction, aclCalls: acl, describeAcls };
}

async function platformaticProbe(topic: string): Promise<Record<string, unknown>> {
  const kafka = loadCandidate<AnyClient>('platformatic');
  const producer = new kafka.Producer({ clientId: 'trial-tx', bootstrapBrokers: brokers(), transactionalId: probeId('tx'), idempotent: true, acks: -1 });
  let transaction: string;
  let offsetsInTransaction = '';
  try {
    const tx = await producer.beginTransaction();
    offsetsInTransaction = Object.entries(has(tx, ['addOffset', 'addConsumer'])).filter(([, v]) => v).map(([k]) => `${k}()`).join(', ') + ' on the transaction';
    await tx.send({ messages: [{ topic, value: Buffer.from('in a transaction') }] });
    await tx.commit();
    transaction = 'committed (send)';
  } catch (error) {
    transaction = `failed: ${errorOf(error)}`;
  }
  await producer.close().catch(() => undefined);
  const admin = new kafka.Admin({ clientId: 'trial-acl', bootstrapBrokers: brokers() });
  let describeAcls: string;
  try {
    const acls = await admin.describeAcls({ filter: { resourceType: kafka.ResourceTypes.TOPIC, resourceName: topic, resourcePatternType: kafka.ResourcePatternTypes.LITERAL, operation: kafka.AclOperations.ANY, permissionType: kafka.AclPermissionTypes.ANY, principal: null, host: null } });
    describeAcls = `answered (${acls.length} resources)`;
  } catch (error) {
    describeAcls = `broker answered: ${errorOf(error)} ${errorOf((error as { errors?: unknown[] }).errors?.[0] ?? '')}`;
  }
  const acl = has(admin, ['createAcls', 'describeAcls', 'deleteAcls']);
  await admin.close();
  return { transaction, offsetsInTransaction, aclCalls: acl, describeAcls };
}

async function confluentProbe(topic: string): Promise<Record<string, unknown>> {
  const { KafkaJS } = loadCandidate<AnyClient>('confluent');
  const kafka = new KafkaJS.Kafka({ kafkaJS: { clientId: 'trial-tx', brokers: brokers(), logLevel: KafkaJS.logLevel.NOTHING } });
  const producer = kafka.producer({ kafkaJS: { transactionalId: probeId('tx'), idempotent: true, maxInFlightRequests: 1 } });
  await producer.connect();
  let transaction: string;
  let offsetsInTransaction = '';
  try {
    const tx = await producer.transaction();
    offsetsInTransaction = typeof tx.sendOffsets === 'function' ? 'sendOffsets({ consumer, topics }) on the transaction (the consumer itself, KIP-447)' : 'none';
    await tx.send({ topic, messages: [{ value: 'in a transaction' }] });
    await tx.commit();
    transaction = 'committed (send)';
  } catch (error) {
    transaction = `failed: ${errorOf(error)}`;
  }
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  const acl = has(admin, ['createAcls', 'describeAcls', 'deleteAcls']);
  await admin.disconnect();
  return { transaction, offsetsInTransaction, aclCalls: acl, describeAcls: 'no such call' };
}

const PROBES: Record<TrialClientName, (topic: string) => Promise<Record<string, unknown>>> = { kafkajs: kafkajsProbe, platformatic: platformaticProbe, confluent: confluentProbe };

async function main(): Promise<void> {
  const setup = await setupClient();
  const topic = probeId('api');
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  for (const client of clientsFromArgs()) {
    await PROBES[client](topic).then(
      (measured) => report('api-surface', client, measured),
      (error) => report('api-surface', client, { failed: errorOf(error) }),
    );
  }
  await setup.admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await setup.close();
  process.exit(0);
}

void main();
