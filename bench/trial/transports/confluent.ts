import type { BatchContext, Outbound, OutboundSender, TopicPartitionOffsets } from '../../../src/contract/transport';
import type { CommandConsumerSettings } from '../../../src/adapters/kafka/command-transport';
import { loadCandidate } from '../trial-clients';
import type { TrialTransport, TrialTransportOptions } from './trial-transport';

/**
 * The service's transport on @confluentinc/kafka-javascript's KafkaJS-compatible API, for the trial only.
 * Nearly a pass-through: the batch loop's calls exist there, except `uncommittedOffsets()` (not implemented),
 * so the adapter keeps the resolved offsets itself and commits them with commitOffsets().
 */
type Headers = Record<string, Buffer | string>;
interface ConfluentBatchPayload {
  batch: { topic: string; partition: number; messages: { key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | Buffer[] | string | undefined>; offset: string; timestamp: string }[] };
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  isStale(): boolean;
}
interface ConfluentConsumer {
  connect(): Promise<void>;
  subscribe(options: { topics: string[] }): Promise<void>;
  run(options: { eachBatchAutoResolve: boolean; partitionsConsumedConcurrently: number; eachBatch: (payload: ConfluentBatchPayload) => Promise<void> }): Promise<void>;
  commitOffsets(offsets: { topic: string; partition: number; offset: string }[]): Promise<void>;
  pause(topics: { topic: string; partitions?: number[] }[]): void;
  resume(topics: { topic: string; partitions?: number[] }[]): void;
  disconnect(): Promise<void>;
  on?(event: string, listener: (payload: unknown) => void): unknown;
}
interface ConfluentProducer {
  connect(): Promise<void>;
  send(record: { topic: string; messages: { key?: Buffer | string | null; value: Buffer | null; headers?: Headers; partition?: number }[] }): Promise<unknown>;
  disconnect(): Promise<void>;
}
interface ConfluentAdmin {
  connect(): Promise<void>;
  fetchTopicMetadata(options: { topics: string[] }): Promise<{ name: string; partitions: unknown[] }[]>;
  disconnect(): Promise<void>;
}
interface ConfluentModule {
  KafkaJS: {
    Kafka: new (config: Record<string, unknown>) => {
      consumer(config: Record<string, unknown>): ConfluentConsumer;
      producer(config: Record<string, unknown>): ConfluentProducer;
      admin(config?: Record<string, unknown>): ConfluentAdmin;
    };
    logLevel: Record<string, number>;
  };
}

/** Records per eachBatch call (the client's default is 32; `js.consumer.max.batch.size`). */
const MAX_BATCH_RECORDS = Number(process.env.CONFLUENT_MAX_BATCH ?? 1024);

export async function connectConfluentTransport(options: TrialTransportOptions, settings: CommandConsumerSettings): Promise<TrialTransport> {
  const { KafkaJS } = loadCandidate<ConfluentModule>('confluent');
  const security = options.sasl
    ? { sasl: { mechanism: options.sasl.mechanism, username: options.sasl.username, password: options.sasl.password }, ssl: options.tls ?? false }
    : options.tls
      ? { ssl: options.tls }
      : {};
  const kafka = new KafkaJS.Kafka({ kafkaJS: { clientId: options.clientId, brokers: options.brokers, logLevel: KafkaJS.logLevel.ERROR, ...security } });
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId: settings.groupId,
      fromBeginning: true,
      autoCommit: false,
      allowAutoTopicCreation: false,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      metadataMaxAge: settings.metadataMaxAgeMs,
      maxBytesPerPartition: settings.maxBytesPerPartition,
      maxWaitTimeInMs: settings.fetchMaxWaitMs,
    },
    'js.consumer.max.batch.size': MAX_BATCH_RECORDS,
    ...(options.groupInstanceId ? { 'group.instance.id': options.groupInstanceId } : {}),
  });
  const producer = kafka.producer({ kafkaJS: { acks: -1, idempotent: false, allowAutoTopicCreation: false } });
  const admin = kafka.admin();
  await Promise.all([consumer.connect(), producer.connect(), admin.connect()]);

  let resolveJoined!: () => void;
  const joined = new Promise<void>((resolve) => (resolveJoined = resolve));
  /** Next offset to read by `topic|partition`, resolved and not yet committed. */
  const resolved = new Map<string, { topic: string; partition: number; offset: string }>();
  const uncommitted = (): TopicPartitionOffsets => {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const { topic, partition, offset } of resolved.values()) {
      const list = byTopic.get(topic) ?? [];
      list.push({ partition, offset });
      byTopic.set(topic, list);
    }
    return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) };
  };

  const counts = new Map<string, { count: number; at: number }>();
  const countOf = async (topic: string): Promise<number> => {
    const cached = counts.get(topic);
    if (cached && Date.now() - cached.at < 60_000) return cached.count;
    const [metadata] = await admin.fetchTopicMetadata({ topics: [topic] });
    const count = metadata?.partitions.length ?? 0;
    counts.set(topic, { count, at: Date.now() });
    return count;
  };
  const sender: OutboundSender = {
    async send(messages: Outbound[]) {
      const byTopic = new Map<string, { key: Buffer | string | null; value: Buffer | null; headers: Headers; partition?: number }[]>();
      for (const m of messages) {
        const partition = m.partition ?? (m.preferredPartition !== undefined ? m.preferredPartition % (await countOf(m.topic)) : undefined);
        const list = byTopic.get(m.topic) ?? [];
        list.push({ key: m.key, value: m.value, headers: m.headers, ...(partition !== undefined ? { partition } : {}) });
        byTopic.set(m.topic, list);
      }
      // librdkafka batches the concurrent sends itself; every promise settles on its delivery report (acks=all)
      await Promise.all([...byTopic].map(([topic, list]) => producer.send({ topic, messages: list })));
      return [];
    },
  };

  return {
    consumer: {
      subscribe: async (topics) => {
        await consumer.subscribe({ topics });
      },
      joined,
      run: async (runOptions) => {
        await consumer.run({
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: runOptions.partitionsConsumedConcurrently,
          eachBatch: async (payload) => {
            resolveJoined();
            const { topic, partition } = payload.batch;
            const key = `${topic}|${partition}`;
            const context: BatchContext = {
              batch: payload.batch,
              resolveOffset: (offset) => {
                payload.resolveOffset(offset);
                resolved.set(key, { topic, partition, offset: (BigInt(offset) + 1n).toString() });
              },
              heartbeat: () => payload.heartbeat(),
              isRunning: () => payload.isRunning(),
              isStale: () => payload.isStale(),
              uncommittedOffsets: uncommitted,
              commitOffsetsIfNecessary: async (offsets) => {
                const list = (offsets ?? uncommitted()).topics.flatMap(({ topic: t, partitions }) => partitions.map((p) => ({ topic: t, partition: p.partition, offset: p.offset })));
                if (list.length === 0) return;
                for (const entry of list) {
                  const k = `${entry.topic}|${entry.partition}`;
                  if (resolved.get(k)?.offset === entry.offset) resolved.delete(k);
                }
                await consumer.commitOffsets(list);
              },
            };
            await runOptions.eachBatch(context);
          },
        });
        // the KafkaJS-compatible API has no group-join event: a member fed nothing yet has still joined once run() returns and the assignment arrives
        setTimeout(resolveJoined, 5_000).unref();
      },
      pause: (topics) => consumer.pause(topics),
      resume: (topics) => consumer.resume(topics),
      disconnect: () => consumer.disconnect(),
      onFatal: () => undefined,
    },
    sender,
    close: async () => {
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}
