import { randomUUID } from 'node:crypto';
import avro from 'avsc';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { ServiceConfig } from '../../src/app/config';
import { loadSchemas } from '../../src/adapters/registry/schemas';
import { useService } from '../support/service-fixture';

/**
 * The contract does not depend on our own encoder: a producer that knows only the registry and the Avro
 * spec (raw avsc + the Confluent wire format, as any language's client would) gets correct replies.
 */
const COMMAND = 'wholesale.portin.v1.CheckPortInEligibility';

async function registryGet(config: ServiceConfig, path: string): Promise<any> {
  const response = await fetch(`${config.schemaRegistryUrl}${path}`);
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return response.json();
}

async function registryPost(config: ServiceConfig, path: string, body: unknown): Promise<Response> {
  return fetch(`${config.schemaRegistryUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify(body),
  });
}

const wire = (id: number, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(id, 1);
  return Buffer.concat([header, body]);
};

describe('contract: a foreign producer using only the registry and the wire format', () => {
  let kafka: Kafka;
  let consumer: Consumer;
  const replies = new Map<string, Buffer>();

  const fx = useService();

  beforeAll(async () => {
    kafka = new Kafka({ brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING });
    consumer = kafka.consumer({ groupId: `foreign-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: fx.config.topics.portinReplies, fromBeginning: true });
    const joined = new Promise((r) => consumer.on(consumer.events.GROUP_JOIN, r));
    await consumer.run({
      eachMessage: async ({ message }) => {
        const id = message.headers?.['X-Correlation-Id']?.toString();
        if (id && message.value) replies.set(id, message.value);
      },
    });
    await joined;
  });

  afterAll(async () => {
    await consumer?.disconnect();
  });

  async function sendForeign(schemaJson: string, id: number, payload: object): Promise<any> {
    const type = avro.Type.forSchema(JSON.parse(schemaJson));
    const correlationId = randomUUID();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: fx.config.topics.portinCommands,
      messages: [{ key: (payload as { gpsi: string }).gpsi, value: wire(id, type.toBuffer(payload)), headers: { 'X-Correlation-Id': correlationId } }],
    });
    await producer.disconnect();
    const deadline = Date.now() + 30000;
    while (!replies.has(correlationId)) {
      if (Date.now() > deadline) throw new Error('no reply');
      await new Promise((r) => setTimeout(r, 50));
    }
    const reply = replies.get(correlationId)!;
    expect(reply[0]).toBe(0);
    const replySchema = await registryGet(fx.config, `/schemas/ids/${reply.readUInt32BE(1)}`);
    return avro.Type.forSchema(JSON.parse(replySchema.schema)).fromBuffer(reply.subarray(5));
  }

  it('encodes with the schema fetched by subject <topic>-<record> and decodes the reply by its schema id', async () => {
    const latest = await registryGet(fx.config, `/subjects/${fx.config.topics.portinCommands}-${COMMAND}/versions/latest`);
    const reply = await sendForeign(latest.schema, latest.id, { gpsi: '14155550123' });
    expect(reply).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible' });
  });

  it('keeps BACKWARD compatibility: a new optional field registers and its producers are served; a new required field is refused', async () => {
    const subject = `${fx.config.topics.portinCommands}-${COMMAND}`;
    const config_ = await registryGet(fx.config, `/config/${subject}`);
    expect(config_.compatibilityLevel).toBe('BACKWARD');
    const current = loadSchemas().get(COMMAND)!;
    const field = `channel${randomUUID().slice(0, 8)}`; // unique: the registry may outlive one run
    const evolved = { ...current, fields: [...current.fields, { name: field, type: ['null', 'string'], default: null }] };
    const accepted = await registryPost(fx.config, `/subjects/${subject}/versions`, { schema: JSON.stringify(evolved) });
    expect(accepted.status).toBe(200);
    const { id } = (await accepted.json()) as { id: number };
    const reply = await sendForeign(JSON.stringify(evolved), id, { gpsi: '14155550124', [field]: 'retail' });
    expect(reply.eligibilityStatus).toBe('Eligible');

    const breaking = { ...current, fields: [...current.fields, { name: 'mandatoryNew', type: 'string' }] };
    const refused = await registryPost(fx.config, `/subjects/${subject}/versions`, { schema: JSON.stringify(breaking) });
    expect(refused.status).toBe(409);
  });
});
