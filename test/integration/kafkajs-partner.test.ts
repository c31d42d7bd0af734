import { randomUUID } from 'node:crypto';
import { CompressionTypes, Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { HEADER } from '../../src/contract/headers';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { useService } from '../support/service-fixture';

/**
 * A partner on plain kafkajs 2.2.4 — the client the service itself ran on until it moved to
 * @platformatic/kafka, and one partners may still use. Its own producer (kafkajs's default partitioner,
 * gzip-compressed batches) sends commands; its own consumer reads the answers on the reply topic. Nothing
 * of the service's Kafka code is on the partner's side.
 */
jest.setTimeout(120_000);

describe('a partner on plain kafkajs, against the service on its new client', () => {
  let kafka: Kafka;
  let producer: Producer;
  let consumer: Consumer;
  const codec = () => new AvroCodec(fx.config.schemaRegistryUrl);
  const replies = new Map<string, { recordName: string; value: Record<string, unknown>; partition: number }>();

  const fx = useService();

  beforeAll(async () => {
    kafka = new Kafka({ clientId: 'kafkajs-partner', brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING });
    producer = kafka.producer({ allowAutoTopicCreation: false });
    consumer = kafka.consumer({ groupId: `kafkajs-partner-${randomUUID()}`, allowAutoTopicCreation: false });
    await Promise.all([producer.connect(), consumer.connect()]);
    await consumer.subscribe({ topics: [fx.config.topics.portinReplies], fromBeginning: true });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    const decoder = codec();
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const id = message.headers?.[HEADER.correlationId]?.toString();
        if (!id || !message.value) return;
        const decoded = await decoder.decode(message.value);
        replies.set(id, { recordName: decoded.recordName, value: JSON.parse(JSON.stringify(decoded.value)), partition });
      },
    });
    await joined;
  });

  afterAll(async () => {
    await Promise.allSettled([producer?.disconnect(), consumer?.disconnect()]);
  });

  it('has every command of a gzip batch answered on its reply topic, matched by X-Correlation-Id', async () => {
    const encoder = codec();
    const numbers = Array.from({ length: 40 }, (_, i) => `4479${String(10_000_000 + i)}`);
    const ids = numbers.map(() => randomUUID());
    const messages = await Promise.all(
      numbers.map(async (gpsi, i) => ({
        key: gpsi,
        value: await encoder.encode(fx.config.topics.portinCommands, 'wholesale.portin.v1.CheckPortInEligibility', { gpsi }),
        headers: { [HEADER.correlationId]: ids[i] },
      })),
    );
    await producer.send({ topic: fx.config.topics.portinCommands, acks: -1, compression: CompressionTypes.GZIP, messages });
    const deadline = Date.now() + 60_000;
    while (ids.some((id) => !replies.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ids.filter((id) => !replies.has(id))).toEqual([]);
    for (const id of ids) expect(replies.get(id)!.value).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible' });
  });
});
