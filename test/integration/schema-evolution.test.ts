import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { ServiceConfig } from '../../src/app/config';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { loadSchemas, type AvroRecordSchema } from '../../src/adapters/registry/schemas';
import { subjectFor } from '../../src/adapters/registry/topology';
import { HEADER } from '../../src/contract/headers';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { testConfig } from '../support/harness';
import { createActiveSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * Schema evolution as partners live it (docs/client.md "Schema versions"): the service registers its command
 * schemas with BACKWARD compatibility; a partner still on the previous version (a field fewer) and one on a
 * newer version (an optional field more) both keep working against the running service, and an incompatible
 * change (a new required field) is refused by the registry when the developer registers it.
 */
const RECORD = balanceRecord('QueryBalanceHistory');
const current = loadSchemas().get(RECORD)!;
// the previous release's: without limit (and without subscriptionId, added since for ended subscriptions)
const previous: AvroRecordSchema = { ...current, fields: current.fields.filter((f) => !['limit', 'subscriptionId'].includes((f as { name: string }).name)) };
const newer: AvroRecordSchema = { ...current, fields: [...current.fields, { name: 'includeRenewals', type: ['null', 'boolean'], default: null }] };
const incompatible: AvroRecordSchema = { ...current, fields: [...current.fields, { name: 'since', type: 'string' }] };

describe('command schema versions against the running service', () => {
  let registry: SchemaRegistry;
  const ids: Record<'previous' | 'newer', number> = { previous: 0, newer: 0 };

  const fx = useService({
    // The previous release of the service registered the older version first; the service registers today's over it: BACKWARD-compatible.
    prepare: async (config) => {
      ids.previous = await new AvroCodec(config.schemaRegistryUrl).register(config.topics.balanceCommands, previous, RECORD);
    },
    requester: (config) => [config.topics.balanceReplies],
  });

  beforeAll(async () => {
    ids.newer = await new AvroCodec(fx.config.schemaRegistryUrl).register(fx.config.topics.balanceCommands, newer, RECORD); // a partner ahead of the service
    registry = new SchemaRegistry({ host: fx.config.schemaRegistryUrl });
  });

  const sendWithSchemaId = async (schemaId: number, value: object, customer: string) => {
    const correlationId = randomUUID();
    const reply = fx.requester.awaitReply(correlationId);
    await fx.requester.sendRaw(fx.config.topics.balanceCommands, {
      key: (value as { gpsi: string }).gpsi,
      value: await registry.encode(schemaId, value),
      headers: { [HEADER.correlationId]: correlationId, [HEADER.wholesaleCustomerId]: customer },
    });
    return reply;
  };

  it("registers three versions of the subject: previous, today's, and the newer one", async () => {
    const subject = subjectFor(fx.config.topics.balanceCommands, RECORD);
    const response = await fetch(`${fx.config.schemaRegistryUrl}/subjects/${encodeURIComponent(subject)}/versions`);
    expect(await response.json()).toHaveLength(3);
    expect(new Set([ids.previous, ids.newer]).size).toBe(2);
  });

  it('answers a partner on the previous version (no limit field) with the default page of 50 entries', async () => {
    const sub = await createActiveSubscription(balanceComponentsOf(fx.service, fx.config).subscriptions);
    const reply = await sendWithSchemaId(ids.previous, { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
    expect(reply.headers[HEADER.status]).toBe('Success');
    expect(reply.recordName).toBe(balanceRecord('QueryBalanceHistoryReply'));
    expect(reply.value.entries.length).toBeGreaterThan(0);
  });

  it('answers a partner on a newer version (an optional field more), its extra field ignored', async () => {
    const sub = await createActiveSubscription(balanceComponentsOf(fx.service, fx.config).subscriptions);
    const reply = await sendWithSchemaId(ids.newer, { gpsi: sub.gpsi, limit: 1, includeRenewals: true }, sub.wholesaleCustomerId);
    expect(reply.headers[HEADER.status]).toBe('Success');
    expect(reply.value.entries).toHaveLength(1);
  });

  it("reads every version as today's record: the reader's default for a missing field, a newer field dropped", async () => {
    const codec = new AvroCodec(fx.config.schemaRegistryUrl);
    const fromPrevious = await codec.decode(await registry.encode(ids.previous, { gpsi: '19459986891' }));
    expect(fromPrevious.value).toEqual({ gpsi: '19459986891', limit: null, subscriptionId: null });
    const fromNewer = await codec.decode(await registry.encode(ids.newer, { gpsi: '19459986891', limit: 3, includeRenewals: true }));
    expect(fromNewer.value).toEqual({ gpsi: '19459986891', limit: 3, subscriptionId: null });
  });

  it('refuses an incompatible version (a new required field) at registration, naming the incompatibility', async () => {
    const codec = new AvroCodec(fx.config.schemaRegistryUrl);
    const refusal = await codec.register(fx.config.topics.balanceCommands, incompatible, RECORD).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refusal).toBeInstanceOf(Error);
    // What the developer sees (Apicurio's ccompat API, HTTP 409): the rule that failed.
    expect(refusal!.message).toMatch(/incompatib|compatib/i);
    console.log(`registry refusal of a new required field: ${refusal!.name}: ${refusal!.message}`);
  });
});

/**
 * Issue 19 grew the balance replies and billing events (purchasedBalance, validFor, purchasedValidUntil), and
 * issue 49 the replies' sub-balances (reservedBalance, availableBalance):
 * each record as it was before — the same schema without those fields — is registered first, as the
 * previous release left it; today's must pass the registry's BACKWARD rule over it, and a record written
 * with the old version reads with the new fields' defaults.
 */
const ISSUE_19_FIELDS = new Set(['purchasedBalance', 'validFor', 'purchasedValidUntil', 'reservedBalance', 'availableBalance']);
const withoutIssue19 = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutIssue19);
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(record).map(([key, value]) => [key, withoutIssue19(value)]));
  if (Array.isArray(copy.fields)) copy.fields = (copy.fields as { name: string }[]).filter((f) => !ISSUE_19_FIELDS.has(f.name));
  return copy;
};

describe('balance replies and billing events after issue 19 against the previous versions', () => {
  const grown = [...loadSchemas().values()].filter((schema) => JSON.stringify(withoutIssue19(schema)) !== JSON.stringify(schema));
  let config: ServiceConfig;
  let codec: AvroCodec;
  beforeAll(() => {
    config = testConfig();
    codec = new AvroCodec(config.schemaRegistryUrl);
  });

  it('registers each grown record over its previous version under the BACKWARD rule', async () => {
    expect(grown.map((s) => s.name).sort()).toEqual(
      expect.arrayContaining([
        'AddBucketsReply',
        'QueryBalanceHistoryReply',
        'QueryBalancesReply',
        'UpdateBalancesReply',
        'BalancesRenewed',
        'BalancesUpdated',
        'BalanceThresholdReached',
        'BucketsAdded',
      ]),
    );
    for (const schema of grown) {
      const record = `${schema.namespace}.${schema.name}`;
      const previousId = await codec.register(config.topics.balanceEvents, withoutIssue19(schema) as AvroRecordSchema, record);
      const currentId = await codec.register(config.topics.balanceEvents, schema, record);
      expect(currentId).not.toBe(previousId);
    }
  });

  it("reads a sub-balance and an event change written before with the new fields' defaults", async () => {
    const registry = new SchemaRegistry({ host: config.schemaRegistryUrl });
    const reply = loadSchemas().get(balanceRecord('QueryBalancesReply'))!;
    const oldReplyId = await codec.register(config.topics.balanceReplies, withoutIssue19(reply) as AvroRecordSchema, balanceRecord('QueryBalancesReply'));
    await codec.register(config.topics.balanceReplies, reply, balanceRecord('QueryBalancesReply'));
    const subBalance = {
      subBalanceInstId: '1-1',
      subBalanceType: 'On-Net Data',
      remainingBalance: 5,
      allocatedBalance: 5,
      rollOverBalance: 0,
      totalBalance: 5,
      unitType: 'MB',
      bucketRefId: null,
    };
    const read = await codec.decode(await registry.encode(oldReplyId, { status: 'Success', balances: [{ balanceType: 'Main', subBalances: [subBalance] }] }));
    expect(read.value.balances).toEqual([
      { balanceType: 'Main', subBalances: [{ ...subBalance, purchasedBalance: 0, validFor: null, purchasedValidUntil: null, reservedBalance: 0, availableBalance: null }] },
    ]);
  });
});
