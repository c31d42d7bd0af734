import { randomUUID } from 'node:crypto';
import { CloudEvent, Kafka, ValidationError } from 'cloudevents';
import avro from 'avsc';
import type { BalanceComponents } from '../../src/app/balance';
import { balanceComponentsOf, BalanceClient, balanceRecord } from '../support/balance-client';
import { type Reply } from '../support/harness';
import { createActiveSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/**
 * Billing events as a CloudEvents consumer reads them: the Kafka binding (binary mode) of the `cloudevents`
 * library turns each record into an event that passes the library's spec validation, and `ce_dataschema`
 * names the registry address of the very schema the record was written with.
 */
describe('events conform to CloudEvents 1.0 (Kafka binding, binary mode)', () => {
  let client: BalanceClient;
  let balance: BalanceComponents;

  const fx = useService();

  beforeAll(async () => {
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  const toEvent = (message: { key: string; value: Buffer; headers: Record<string, string> }): CloudEvent<unknown> => Kafka.toEvent({ ...message, body: message.value }) as CloudEvent<unknown>;
  const asCloudEvent = (record: Reply): CloudEvent<unknown> => toEvent({ key: record.key ?? '', value: record.rawValue!, headers: record.headers });

  it('a billing event passes the library validation and its dataschema resolves to the writer schema', async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' });
    const correlationId = randomUUID();
    const reply = await client.send('AddBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000001'] }, sub.wholesaleCustomerId, correlationId);
    expect(reply.value.status).toBe('Success');
    const record = await client.event((e) => e.recordName === balanceRecord('BucketsAdded') && e.value.correlationId === correlationId);

    const event = asCloudEvent(record);
    expect(event.validate()).toBe(true);
    expect(event).toMatchObject({ specversion: '1.0', type: balanceRecord('BucketsAdded'), subject: sub.gpsi, datacontenttype: 'application/avro' });

    const schemaId = record.rawValue!.readInt32BE(1);
    expect(event.dataschema).toBe(`${fx.config.schemaRegistryUrl}/schemas/ids/${schemaId}`);
    const response = await fetch(event.dataschema!);
    expect(response.status).toBe(200);
    const writer = avro.Type.forSchema(JSON.parse(((await response.json()) as { schema: string }).schema));
    expect(writer.name).toBe(balanceRecord('BucketsAdded'));
    expect(writer.fromBuffer(record.rawValue!.subarray(5))).toMatchObject({ gpsi: sub.gpsi, correlationId });
  });

  it('the validation this test relies on refuses a record whose attributes break the spec', () => {
    const headers = { ce_specversion: '1.0', ce_id: 'x', ce_source: 'svc', ce_type: 'T', 'content-type': 'application/avro' };
    expect(toEvent({ key: 'k', value: Buffer.from([0]), headers }).validate()).toBe(true);
    expect(() => toEvent({ key: 'k', value: Buffer.from([0]), headers: { ...headers, ce_dataschema: 'not a uri' } }).validate()).toThrow(ValidationError);
    expect(() => toEvent({ key: 'k', value: Buffer.from([0]), headers: { ...headers, ce_id: '' } }).validate()).toThrow(ValidationError);
  });
});
