import type { Consumer, Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { ServiceConfig } from '../config';
import { createProducer } from '../adapters/kafka/kafka';
import { createPartitionedSender, partitionCounts, type OutboundSender, type PartitionCount } from '../adapters/kafka/partitioned-sender';
import { BatchWorker, type BatchWorkerOptions, type RecordProcessor } from '../worker/batch-worker';
import { deadLetterMessage, undeliverableDeadLetter } from '../worker/outbound';
import { deadLetteringRefusedBatches } from '../worker/refused-batches';
import { refusalOf, registerBoundedCodecs } from '../adapters/kafka/bounded-codecs';
import { deadLetterSink } from './dead-letters';

/**
 * The Kafka side of a command worker — producer, consumer, sender and batch loop — built once for the
 * service and for the benchmark's echo floor, so the floor runs with exactly the service's client
 * settings and differs only in what its processors do.
 */
export interface WorkerTransport {
  readonly producer: Producer;
  readonly consumer: Consumer;
  /** Writes one topic-partition per call (see partitioned-sender.ts). */
  readonly sender: OutboundSender;
  /** The sender's cached partition counts: also where a requested reply topic is checked (never created). */
  readonly partitionCount: PartitionCount;
  /** Disconnects the producer and the metadata client (the batch worker disconnects the consumer). */
  close(): Promise<void>;
}

export async function connectWorkerTransport(
  kafka: Kafka,
  config: ServiceConfig,
  options: { observe?: (producer: Producer) => Producer } = {},
): Promise<WorkerTransport> {
  const created = createProducer(kafka, { ordered: false });
  const producer = options.observe ? options.observe(created) : created;
  const consumer = kafka.consumer({
    groupId: config.groupId,
    allowAutoTopicCreation: false,
    maxBytesPerPartition: config.limits.maxMessageBytes * 4,
    sessionTimeout: config.kafka.sessionTimeoutMs,
    heartbeatInterval: config.kafka.heartbeatIntervalMs,
    metadataMaxAge: config.kafka.metadataMaxAgeMs,
    maxWaitTimeInMs: config.kafka.fetchMaxWaitMs,
  });
  // partition counts for the sender, which chooses every message's partition itself
  const metadata = kafka.admin();
  await Promise.all([producer.connect(), consumer.connect(), metadata.connect()]);
  const partitionCount = partitionCounts(metadata);
  return {
    producer,
    consumer,
    partitionCount,
    sender: createPartitionedSender(producer, partitionCount),
    close: async () => {
      await producer.disconnect();
      await metadata.disconnect();
    },
  };
}

/**
 * The batch loop over `processors` (topic → processor) with the configured concurrency and commit interval.
 * Compressed batches are inflated within MAX_DECOMPRESSED_BATCH_BYTES and with the codecs this process has;
 * the records of a batch refused are dead-lettered before any processor sees them.
 */
export function createBatchWorker(
  config: ServiceConfig,
  transport: WorkerTransport,
  processors: ReadonlyMap<string, RecordProcessor>,
  log: Logger,
  onOutcome: BatchWorkerOptions['onOutcome'],
): BatchWorker {
  const deadLetters = deadLetterSink(config);
  registerBoundedCodecs({
    maxInflatedBytes: config.limits.maxDecompressedBatchBytes,
    onRefused: (detail, records) => log.warn({ detail, records }, 'compressed batch not inflated; its records are dead-lettered'),
  });
  const guarded = new Map([...processors].map(([topic, processor]) => [topic, deadLetteringRefusedBatches(processor, refusalOf, deadLetters)]));
  return new BatchWorker({
    consumer: transport.consumer,
    sender: transport.sender,
    processors: guarded,
    concurrency: config.limits.handlerConcurrency,
    partitionsConsumedConcurrently: config.kafka.topicPartitions,
    commitIntervalMs: config.kafka.commitIntervalMs,
    log,
    deadLetter: (message, position, error) => [
      deadLetterMessage(deadLetters, message, position, {
        reason: 'PROCESSING_FAILED',
        detail: 'the record processor failed unexpectedly',
        diagnostic: (error as Error)?.message ?? String(error),
      }),
    ],
    undeliverable: (refused, record, position, reason) => undeliverableDeadLetter(deadLetters, refused, record, position, reason),
    onOutcome,
  });
}
