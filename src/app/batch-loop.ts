import type { Logger } from 'pino';
import type { CommandConsumerSettings } from '../adapters/kafka/command-transport';
import type { BatchConsumer, OutboundSender, TransactionalOutputs } from '../contract/transport';
import { BatchWorker, type BatchWorkerOptions, type RecordProcessor } from '../pipeline/batch-worker';
import { processingFailedDeadLetter, undeliverableDeadLetter } from '../pipeline/outbound';
import type { ServiceConfig } from './config';
import { deadLetterSink } from './dead-letter-sink';
import { deadLetteringRefusedBatches } from '../pipeline/refused-batches';
import { registerBoundedCodecs } from '../adapters/kafka/bounded-codecs';
import { refusedBatchDetail } from '../adapters/kafka/refused-batch';
import { tracedProcessor } from '../observability/record-tracing';

/** The settings of the service's group member, from the configuration. */
export const commandConsumerSettings = (config: ServiceConfig): CommandConsumerSettings => ({
  groupId: config.groupId,
  // One of the largest commands per partition and fetch (a larger record batch still comes whole: Kafka
  // returns a partition's first batch whatever the limit): what a backlog puts in memory per fetch stays
  // small (docs/benchmarks.md, seventh round).
  maxBytesPerPartition: config.limits.maxMessageBytes,
  sessionTimeoutMs: config.kafka.sessionTimeoutMs,
  heartbeatIntervalMs: config.kafka.heartbeatIntervalMs,
  metadataMaxAgeMs: config.kafka.metadataMaxAgeMs,
  fetchMaxWaitMs: config.kafka.fetchMaxWaitMs,
  ...(config.kafka.groupInstanceId ? { groupInstanceId: config.kafka.groupInstanceId } : {}),
});

/** `processors` as they are now and later (topics join while the loop runs), each one guarded once. */
function guardedView(
  processors: Pick<ReadonlyMap<string, RecordProcessor>, 'get' | 'keys'>,
  guard: (processor: RecordProcessor) => RecordProcessor,
): Pick<ReadonlyMap<string, RecordProcessor>, 'get' | 'keys'> {
  const guarded = new WeakMap<RecordProcessor, RecordProcessor>();
  return {
    get: (topic) => {
      const processor = processors.get(topic);
      if (processor === undefined) return undefined;
      if (!guarded.has(processor)) guarded.set(processor, guard(processor));
      return guarded.get(processor);
    },
    keys: () => processors.keys(),
  };
}

/**
 * The batch loop over `processors` (topic → processor) with the configured concurrency and commit interval.
 * Compressed batches (gzip, Snappy, LZ4, zstd) are inflated within MAX_DECOMPRESSED_BATCH_BYTES; a batch
 * refused is dead-lettered (one placeholder for all its records) before any processor sees it.
 */
export function createBatchWorker(
  config: ServiceConfig,
  transport: { consumer: BatchConsumer; sender: OutboundSender; transactions?: TransactionalOutputs },
  processors: Pick<ReadonlyMap<string, RecordProcessor>, 'get' | 'keys'>,
  log: Logger,
  onOutcome: BatchWorkerOptions['onOutcome'],
  /** The Redis side of each slice: WAIT for replicas, all its calls on one connection (none: no Redis). */
  store: Pick<BatchWorkerOptions, 'replicated' | 'sliceScope'> = {},
): BatchWorker {
  const deadLetters = deadLetterSink(config);
  const bounded = registerBoundedCodecs({
    maxInflatedBytes: config.limits.maxDecompressedBatchBytes,
    onRefused: (detail) => log.warn({ detail }, 'compressed batch not inflated; it is dead-lettered'),
  });
  if (!bounded) log.error("the Kafka client's codec table did not take the bounded decompressors: compressed batches inflate without a bound");
  const guarded = (processor: RecordProcessor) => deadLetteringRefusedBatches(tracedProcessor(processor), refusedBatchDetail, deadLetters);
  return new BatchWorker({
    consumer: transport.consumer,
    sender: transport.sender,
    ...(transport.transactions ? { transactions: transport.transactions } : {}),
    processors: guardedView(processors, guarded),
    concurrency: config.limits.handlerConcurrency,
    sliceRecords: config.limits.batchSliceRecords,
    partitionsConsumedConcurrently: config.kafka.topicPartitions,
    commitIntervalMs: config.kafka.commitIntervalMs,
    log,
    deadLetter: (message, position, error) => [processingFailedDeadLetter(deadLetters, message, position, error)],
    undeliverable: (refused, record, position, reason) => undeliverableDeadLetter(deadLetters, refused, record, position, reason),
    onOutcome,
    ...store,
  });
}
