import type { Producer } from 'kafkajs';
import type { BatchConsumer, ConsumerMembership, OutboundSender, PartitionCount, SentListener } from '../../contract/transport';
import { ConsumerStateTracker } from './consumer-state';
import { createKafka, createProducer, type KafkaConnection } from './kafka';
import { observeProducer } from './observed-producer';
import { createPartitionedSender, partitionCounts } from './partitioned-sender';
import { tracedSender } from './traced-sender';
import { createConsumer } from './closable-consumer';

/**
 * The Kafka side of a command service — its group's consumer, a producer, the partitioned sender and the
 * partition counts — built once for the service and for the benchmark's echo floor, so the floor runs with
 * exactly the service's client settings and differs only in what its processors do.
 */
export interface CommandConsumerSettings {
  groupId: string;
  /** The most a fetch takes from one partition (beyond its first record batch, which always comes whole). */
  maxBytesPerPartition: number;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  metadataMaxAgeMs: number;
  /** How long a fetch waits for records, and kafkajs sleeps when every partition of a broker is paused. */
  fetchMaxWaitMs: number;
}

/** The group member the batch loop runs on, with what the service watches of it. */
export interface CommandConsumer extends BatchConsumer {
  /** Subscribes to the topics, from their beginning for a group without committed offsets. */
  subscribe(topics: string[]): Promise<void>;
  /** Resolves once the consumer has joined its group and been assigned partitions. */
  readonly joined: Promise<void>;
  /** Its group membership, followed from the consumer's events since it connected (readiness, metrics). */
  readonly membership: ConsumerMembership;
  /** Called when the consumer stopped for good (kafkajs restarts it after a retriable crash, not after others). */
  onFatal(listener: (error: Error) => void): void;
}

export interface CommandTransport {
  readonly consumer: CommandConsumer;
  /** Writes a batch in one call, or one topic-partition per call after a failure (see partitioned-sender.ts). */
  readonly sender: OutboundSender;
  /** The sender's cached partition counts: also where a requested reply topic is checked (never created). */
  readonly partitionCount: PartitionCount;
  /** Disconnects the producer and the metadata client (the batch loop disconnects the consumer). */
  close(): Promise<void>;
}

export async function connectCommandTransport(
  connection: KafkaConnection,
  settings: CommandConsumerSettings,
  options: { onSent?: SentListener } = {},
): Promise<CommandTransport> {
  const kafka = createKafka(connection);
  const observed = (producer: Producer) => (options.onSent ? observeProducer(producer, options.onSent) : producer);
  const producer = observed(createProducer(kafka, { ordered: false }));
  const spanning = observed(createProducer(kafka, { ordered: false, once: true }));
  const consumer = createConsumer(kafka, {
    groupId: settings.groupId,
    allowAutoTopicCreation: false,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    sessionTimeout: settings.sessionTimeoutMs,
    heartbeatInterval: settings.heartbeatIntervalMs,
    metadataMaxAge: settings.metadataMaxAgeMs,
    maxWaitTimeInMs: settings.fetchMaxWaitMs,
  });
  const membership = new ConsumerStateTracker(consumer);
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  // partition counts for the sender, which chooses every message's partition itself
  const metadata = kafka.admin();
  await Promise.all([producer.connect(), spanning.connect(), consumer.connect(), metadata.connect()]);
  const partitionCount = partitionCounts(metadata);
  return {
    consumer: {
      run: (runOptions) => consumer.run(runOptions),
      pause: (topics) => consumer.pause(topics),
      resume: (topics) => consumer.resume(topics),
      disconnect: () => consumer.disconnect(),
      subscribe: (topics) => consumer.subscribe({ topics, fromBeginning: true }),
      joined,
      membership,
      onFatal: (listener) =>
        consumer.on(consumer.events.CRASH, ({ payload }) => {
          if (!payload.restart) listener(payload.error);
        }),
    },
    partitionCount,
    sender: tracedSender(createPartitionedSender(producer, partitionCount, spanning)),
    close: async () => {
      await Promise.all([producer.disconnect(), spanning.disconnect()]);
      await metadata.disconnect();
    },
  };
}
