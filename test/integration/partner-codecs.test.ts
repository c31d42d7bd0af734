import { randomUUID } from 'node:crypto';
import LZ4Codec from '@2l/kafkajs-lz4';
import { ProduceAcks, Producer, stringSerializer } from '@platformatic/kafka';
import { CompressionCodecs, CompressionTypes, Kafka, logLevel, type Producer as KafkajsProducer } from 'kafkajs';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { fromMilli } from '../../src/domain/balance/units';
import { HEADER } from '../../src/contract/headers';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';
import { xerialSnappy } from '../support/xerial-snappy';

// Partners' producers as they exist, with each of Kafka's four codecs: @platformatic/kafka's producer with
// `compression` gzip, snappy, lz4 and zstd (its own WebAssembly Snappy and LZ4, raw Snappy and LZ4 frames),
// and kafkajs with gzip, and Snappy and LZ4 through the codec plug-ins partners install (kafkajs-snappy,
// @2l/kafkajs-lz4), and Snappy in the xerial framing Kafka's Java producer writes. Each sends one compressed batch of UpdateBalances to a subscription of its own; each
// command gets its Success reply and each Add is in Redis.
jest.setTimeout(120_000);

// kafkajs-snappy ships no types: a kafkajs codec factory
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a package without types, loaded as the CommonJS module it is
const SnappyCodec = require('kafkajs-snappy') as () => unknown;

type Codec = 'gzip' | 'snappy' | 'lz4' | 'zstd';
interface Message {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}
interface PartnerProducer {
  send(topic: string, messages: Message[]): Promise<unknown>;
  close(): Promise<unknown>;
}

const COMMANDS_PER_BATCH = 5;
const ADDED_MB = 3;
const KAFKAJS_CODECS: Partial<Record<Codec, CompressionTypes>> = { gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy, lz4: CompressionTypes.LZ4 };
type Client = 'platformatic' | 'kafkajs' | 'java-framed';
const PARTNERS: { client: Client; codec: Codec }[] = [
  ...(['gzip', 'snappy', 'lz4', 'zstd'] as const).map((codec) => ({ client: 'platformatic' as const, codec })),
  ...(['gzip', 'snappy', 'lz4'] as const).map((codec) => ({ client: 'kafkajs' as const, codec })),
  { client: 'java-framed', codec: 'snappy' },
];
/** A kafkajs codec writing Snappy as Kafka's Java producer does. */
const xerialCodec = () => ({ compress: async (encoder: { buffer: Buffer }) => xerialSnappy(encoder.buffer), decompress: async () => Buffer.alloc(0) });

describe("partners' producers with each of Kafka's codecs", () => {
  const fx = useService({ requester: true });
  const producers: PartnerProducer[] = [];
  const subscriptions = new Map<string, TestSubscription>();
  const registered = { ...CompressionCodecs };

  function platformaticProducer(codec: Codec): PartnerProducer {
    // headers as a record of strings (the client runs outside Jest's realm: a Map made here is no `instanceof Map` there)
    const serializers = { headerKey: stringSerializer, headerValue: stringSerializer };
    const producer = new Producer({ clientId: `partner-${codec}`, bootstrapBrokers: fx.config.kafka.brokers, compression: codec, acks: ProduceAcks.ALL, serializers });
    return {
      send: (topic, messages) => producer.send({ messages: messages.map(({ key, value, headers }) => ({ topic, key: Buffer.from(key), value, headers })) }),
      close: () => producer.close(),
    };
  }

  /** kafkajs with `codec`; `java-framed`: its Snappy codec swapped for the xerial one while it sends (codecs are kafkajs-wide). */
  async function kafkajsProducer(kafka: Kafka, codec: Codec, javaFramed: boolean): Promise<PartnerProducer> {
    const producer: KafkajsProducer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
    return {
      send: async (topic, messages) => {
        const plugIn = codecs[CompressionTypes.Snappy];
        if (javaFramed) codecs[CompressionTypes.Snappy] = xerialCodec;
        try {
          return await producer.send({ topic, acks: -1, compression: KAFKAJS_CODECS[codec]!, messages });
        } finally {
          codecs[CompressionTypes.Snappy] = plugIn;
        }
      },
      close: () => producer.disconnect(),
    };
  }

  beforeAll(async () => {
    const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
    codecs[CompressionTypes.Snappy] = SnappyCodec;
    codecs[CompressionTypes.LZ4] = new LZ4Codec().codec;
    const kafka = new Kafka({ clientId: 'codec-partner', brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING });
    const { subscriptions: store } = balanceComponentsOf(fx.service, fx.config);
    for (const { client, codec } of PARTNERS) {
      producers.push(client === 'platformatic' ? platformaticProducer(codec) : await kafkajsProducer(kafka, codec, client === 'java-framed'));
      subscriptions.set(`${client} ${codec}`, await createActiveSubscription(store));
    }
  });

  afterAll(async () => {
    await Promise.allSettled(producers.map((producer) => producer.close()));
    Object.assign(CompressionCodecs, registered);
  });

  it('has every command of every codec answered Success, and its Add applied in Redis', async () => {
    const encoder = new AvroCodec(fx.config.schemaRegistryUrl);
    const topic = fx.config.topics.balanceCommands;
    const sent = await Promise.all(
      PARTNERS.map(async ({ client, codec }, index) => {
        const sub = subscriptions.get(`${client} ${codec}`)!;
        const ids = Array.from({ length: COMMANDS_PER_BATCH }, () => randomUUID());
        const add = { subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: ADDED_MB, unitType: 'MB' };
        const messages = await Promise.all(
          ids.map(async (id) => ({
            key: sub.gpsi,
            value: await encoder.encode(topic, balanceRecord('UpdateBalances'), { gpsi: sub.gpsi, balances: [add] }),
            headers: { [HEADER.correlationId]: id, [HEADER.wholesaleCustomerId]: sub.wholesaleCustomerId },
          })),
        );
        return { partner: `${client} ${codec}`, sub, ids, messages, producer: producers[index] };
      }),
    );
    // one after another: the java-framed partner swaps kafkajs's Snappy codec while it sends
    for (const { producer, messages } of sent) await producer.send(topic, messages);

    const answered = await Promise.all(
      sent.map(async ({ partner, ids }) => {
        const replies = await Promise.allSettled(ids.map((id) => fx.requester.awaitReply(id, 60_000)));
        return [partner, replies.map((reply) => (reply.status === 'fulfilled' ? reply.value.headers[HEADER.status] : 'no reply'))];
      }),
    );
    expect(answered).toEqual(PARTNERS.map(({ client, codec }) => [`${client} ${codec}`, Array(COMMANDS_PER_BATCH).fill('Success')]));

    const { balances } = balanceComponentsOf(fx.service, fx.config);
    const data = await Promise.all(
      sent.map(async ({ partner, sub }) => {
        const { balances: subBalances } = await balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]);
        const dataBalance = subBalances.find((b) => b.subBalanceInstId === `${sub.gpsi}-4`);
        return [partner, dataBalance && fromMilli(dataBalance.remaining)];
      }),
    );
    expect(data).toEqual(PARTNERS.map(({ client, codec }) => [`${client} ${codec}`, 5120 + COMMANDS_PER_BATCH * ADDED_MB]));
  });
});
