import type { BatchContext, InboundRecord, Outbound, OutboundSender, RecordBatch, RecordHeaders } from '../../../src/contract/transport';
import type { CommandConsumerSettings } from '../../../src/adapters/kafka/command-transport';
import { loadCandidate } from '../trial-clients';
import type { TrialTransport, TrialTransportOptions } from './trial-transport';

/**
 * The service's transport (a group member fed batch by batch, a sender) on @platformatic/kafka's public API,
 * for the trial only. Its consumer is one stream of records for all partitions, so the adapter:
 * - groups the records by partition and hands each partition's queued records to `eachBatch` as one batch,
 *   one batch in flight per partition (the stream pauses while too many records wait);
 * - holds a partition without a per-partition pause (the client has none): the records of a held partition
 *   stay queued in the adapter, from the first one not resolved, while the other partitions flow; past
 *   HELD_QUEUE_LIMIT records waiting the whole stream pauses (the hold then costs every partition);
 * - commits through the records' own commit() (the stream's single-flight, monotonic commits).
 */
interface PlatformaticMessage {
  key: Buffer | undefined;
  value: Buffer | undefined;
  headers: Map<Buffer, Buffer>;
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  commit(): Promise<void>;
}
interface MessagesStream {
  on(event: 'data', listener: (message: PlatformaticMessage) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  close(): Promise<void>;
}
interface PlatformaticConsumer {
  assignments: { topic: string; partitions: number[] }[] | null;
  consume(options: Record<string, unknown>): Promise<MessagesStream>;
  on(event: string, listener: (payload: unknown) => void): unknown;
  close(force?: boolean): Promise<void>;
}
interface PlatformaticProducer {
  send(options: { messages: Record<string, unknown>[]; acks?: number }): Promise<unknown>;
  metadata(options: { topics: string[]; forceUpdate?: boolean }): Promise<{ topics: Map<string, { partitionsCount: number }> }>;
  close(force?: boolean): Promise<void>;
}
interface PlatformaticModule {
  Consumer: new (options: Record<string, unknown>) => PlatformaticConsumer;
  Producer: new (options: Record<string, unknown>) => PlatformaticProducer;
}

/** Records a held partition may queue before the whole stream pauses. */
const HELD_QUEUE_LIMIT = 5_000;
/** Records waiting in the adapter (all partitions) before the stream pauses. */
const QUEUE_HIGH_WATER = 2_000;

const headersOf = (headers: Map<Buffer, Buffer>): RecordHeaders => {
  const out: RecordHeaders = {};
  for (const [name, value] of headers) out[name.toString()] = value;
  return out;
};

interface PartitionQueue {
  topic: string;
  partition: number;
  records: PlatformaticMessage[];
  paused: boolean;
  busy: boolean;
}

export async function connectPlatformaticTransport(options: TrialTransportOptions, settings: CommandConsumerSettings): Promise<TrialTransport> {
  const kafka = loadCandidate<PlatformaticModule>('platformatic');
  // the client's default is 3 retries a second apart: a cluster moving its coordinator or still creating
  // __consumer_offsets outlasts that (kafkajs's and librdkafka's retry for longer)
  const base = { clientId: options.clientId, bootstrapBrokers: options.brokers, retries: 30, retryDelay: 500, ...(options.sasl ? { sasl: options.sasl } : {}), ...(options.tls ? { tls: options.tls } : {}) };
  const consumer = new kafka.Consumer({
    ...base,
    groupId: settings.groupId,
    sessionTimeout: settings.sessionTimeoutMs,
    heartbeatInterval: settings.heartbeatIntervalMs,
    metadataMaxAge: settings.metadataMaxAgeMs,
    ...(options.groupInstanceId ? { groupInstanceId: options.groupInstanceId } : {}),
  });
  const producer = new kafka.Producer({ ...base, acks: -1, idempotent: false, metadataMaxAge: settings.metadataMaxAgeMs });
  let topics: string[] = [];
  let stream: MessagesStream | undefined;
  let running = false;
  let streamPaused = false;
  let resolveJoined!: () => void;
  const joined = new Promise<void>((resolve) => (resolveJoined = resolve));
  consumer.on('consumer:group:join', () => resolveJoined());
  const fatal: ((error: Error) => void)[] = [];
  const queues = new Map<string, PartitionQueue>();
  const queueOf = (topic: string, partition: number): PartitionQueue => {
    const key = `${topic}|${partition}`;
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = { topic, partition, records: [], paused: false, busy: false }));
    return queue;
  };
  const assigned = (topic: string, partition: number) => consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) ?? false;

  let eachBatch: ((context: BatchContext) => Promise<void>) | undefined;
  const waiting = () => {
    let count = 0;
    for (const queue of queues.values()) if (!queue.paused) count += queue.records.length;
    return count;
  };
  const heldOverflow = () => [...queues.values()].some((queue) => queue.paused && queue.records.length > HELD_QUEUE_LIMIT);
  const flowControl = () => {
    const shouldPause = waiting() > QUEUE_HIGH_WATER || heldOverflow();
    if (shouldPause && !streamPaused) stream?.pause();
    if (!shouldPause && streamPaused) stream?.resume();
    streamPaused = shouldPause;
  };

  const dispatch = (queue: PartitionQueue) => {
    if (!running || queue.busy || queue.paused || queue.records.length === 0 || !eachBatch) return;
    queue.busy = true;
    const taken = queue.records;
    queue.records = [];
    flowControl();
    const byOffset = new Map<string, PlatformaticMessage>();
    const messages: InboundRecord[] = taken.map((m) => {
      const offset = m.offset.toString();
      byOffset.set(offset, m);
      return { key: m.key ?? null, value: m.value ?? null, headers: headersOf(m.headers), offset, timestamp: m.timestamp.toString() };
    });
    const batch: RecordBatch = { topic: queue.topic, partition: queue.partition, messages };
    let resolved: PlatformaticMessage | undefined;
    let committed: PlatformaticMessage | undefined;
    const context: BatchContext = {
      batch,
      resolveOffset: (offset) => (resolved = byOffset.get(offset) ?? resolved),
      heartbeat: async () => undefined, // the client heartbeats on its own timer
      isRunning: () => running,
      isStale: () => !assigned(queue.topic, queue.partition),
      uncommittedOffsets: () =>
        resolved && resolved !== committed ? { topics: [{ topic: queue.topic, partitions: [{ partition: queue.partition, offset: (resolved.offset + 1n).toString() }] }] } : { topics: [] },
      commitOffsetsIfNecessary: async () => {
        const upTo = resolved;
        if (!upTo || upTo === committed) return;
        await upTo.commit();
        committed = upTo;
      },
    };
    eachBatch(context)
      .catch((error: Error) => options.log.warn({ err: error.message, topic: queue.topic, partition: queue.partition }, 'batch failed; its records are delivered again'))
      .finally(() => {
        // Paused during the batch (a held record): what was not resolved comes again on resume, as a
        // consumer that seeks back to the held record would fetch it.
        const resolvedOffset = resolved?.offset ?? -1n;
        const rest = taken.filter((m) => m.offset > resolvedOffset);
        if (queue.paused && running && assigned(queue.topic, queue.partition)) queue.records = [...rest, ...queue.records];
        queue.busy = false;
        flowControl();
        dispatch(queue);
      });
  };

  const partitionCounts = new Map<string, { count: number; at: number }>();
  const countOf = async (topic: string): Promise<number> => {
    const cached = partitionCounts.get(topic);
    if (cached && Date.now() - cached.at < 60_000) return cached.count;
    const metadata = await producer.metadata({ topics: [topic] });
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    partitionCounts.set(topic, { count, at: Date.now() });
    return count;
  };
  const sender: OutboundSender = {
    async send(messages: Outbound[]) {
      if (messages.length === 0) return [];
      const placed = await Promise.all(
        messages.map(async (m) => ({
          topic: m.topic,
          key: m.key === null ? undefined : Buffer.isBuffer(m.key) ? m.key : Buffer.from(m.key),
          value: m.value ?? undefined,
          headers: new Map(Object.entries(m.headers).map(([name, value]) => [Buffer.from(name), Buffer.isBuffer(value) ? value : Buffer.from(value)])),
          ...(m.partition !== undefined ? { partition: m.partition } : m.preferredPartition !== undefined ? { partition: m.preferredPartition % (await countOf(m.topic)) } : {}),
        })),
      );
      await producer.send({ messages: placed, acks: -1 });
      return [];
    },
  };

  return {
    consumer: {
      subscribe: async (subscribed) => {
        topics = subscribed;
      },
      joined,
      run: async (runOptions) => {
        eachBatch = runOptions.eachBatch;
        running = true;
        stream = await consumer.consume({
          topics,
          mode: 'committed',
          fallbackMode: 'earliest',
          autocommit: false,
          maxBytesPerPartition: settings.maxBytesPerPartition,
          maxWaitTime: settings.fetchMaxWaitMs,
          sessionTimeout: settings.sessionTimeoutMs,
          heartbeatInterval: settings.heartbeatIntervalMs,
          ...(options.groupInstanceId ? { groupInstanceId: options.groupInstanceId } : {}),
        });
        stream.on('data', (message) => {
          const queue = queueOf(message.topic, message.partition);
          queue.records.push(message);
          flowControl();
          dispatch(queue);
        });
        stream.on('error', (error) => fatal.forEach((listener) => listener(error)));
      },
      pause: (paused) => {
        for (const { topic, partitions } of paused) {
          const matching = partitions ? partitions.map((p) => queueOf(topic, p)) : [...queues.values()].filter((q) => q.topic === topic);
          for (const queue of matching) queue.paused = true;
          if (!partitions) stream?.pause();
        }
      },
      resume: (resumed) => {
        for (const { topic, partitions } of resumed) {
          const matching = partitions ? partitions.map((p) => queueOf(topic, p)) : [...queues.values()].filter((q) => q.topic === topic);
          for (const queue of matching) {
            queue.paused = false;
            dispatch(queue);
          }
        }
        flowControl();
      },
      disconnect: async () => {
        running = false;
        await stream?.close().catch(() => undefined);
        await consumer.close(true);
      },
      onFatal: (listener) => fatal.push(listener),
    },
    sender,
    close: () => producer.close(),
  };
}
