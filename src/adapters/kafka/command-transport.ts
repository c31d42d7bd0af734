import type { BatchConsumer, ConsumerMembership, OutboundSender, PartitionCount, SentListener, TransactionalOutputs, TransactionListener } from '../../contract/transport';
import type { KafkaConnection } from './connection';
import { GroupMember, type GroupMemberSettings } from './group-member';
import { observeProduceCall } from './observed-producer';
import { createPartitionedSender, partitionCounts } from './partitioned-sender';
import { createProducer, partitionsReader, produceCall } from './producer';
import { tracedSender, tracedTransactions } from './traced-sender';
import { topicSizeLimits } from './topic-size-limits';
import { TransactionalOutput, transactionalIdOf } from './transactional-output';

/**
 * The Kafka side of a command service — its group's member, the producers, the partitioned sender and the
 * partition counts — built once for the service and for the benchmark's echo floor, so the floor runs with
 * exactly the service's client settings and differs only in what its processors do.
 */
export type CommandConsumerSettings = GroupMemberSettings;

/** The group member the batch loop runs on, with what the service watches of it. */
export interface CommandConsumer extends BatchConsumer {
  /** Subscribes to the topics, from their beginning for a group without committed offsets. */
  subscribe(topics: string[]): Promise<void>;
  /** Resolves once the consumer has joined its group and been assigned partitions. */
  readonly joined: Promise<void>;
  /** Its group membership, followed from the consumer's events since it connected (readiness, metrics). */
  readonly membership: ConsumerMembership;
  /** Called when the consumer stopped for good (it consumes again after a failure it can recover from, not after others). */
  onFatal(listener: (error: Error) => void): void;
}

export interface CommandTransport {
  readonly consumer: CommandConsumer;
  /** Writes a batch in one call, or one topic-partition per call after a failure (see partitioned-sender.ts). */
  readonly sender: OutboundSender;
  /** The sender's cached partition counts: also where a requested reply topic is checked (never created). */
  readonly partitionCount: PartitionCount;
  /** The exactly-once door (outputs and offsets in transactions); undefined when delivery is at least once. */
  readonly transactions?: TransactionalOutputs;
  /** Closes the producers (the batch loop disconnects the consumer). */
  close(): Promise<void>;
}

export async function connectCommandTransport(
  connection: KafkaConnection,
  settings: CommandConsumerSettings,
  options: { onSent?: SentListener; onTransaction?: TransactionListener; exactlyOnce?: { commitIntervalMs: number } } = {},
): Promise<CommandTransport> {
  const producer = createProducer(connection, { ordered: false });
  const spanning = createProducer(connection, { ordered: false, once: true });
  const observed = (call: ReturnType<typeof produceCall>) => (options.onSent ? observeProduceCall(call, options.onSent) : call);
  const partitionCount = partitionCounts(partitionsReader(producer));
  const consumer = new GroupMember(connection, settings);
  const limits = options.exactlyOnce ? topicSizeLimits(connection, connection.log) : undefined;
  const transactions = limits
    ? tracedTransactions(
        new TransactionalOutput(connection, {
          transactionalId: transactionalIdOf(connection.clientId, settings.groupInstanceId),
          countOf: partitionCount,
          limitOf: limits.limitOf,
          group: consumer.consumer,
          commitIntervalMs: options.exactlyOnce!.commitIntervalMs,
          onSent: (sent) => options.onSent?.(sent),
          log: connection.log,
          ...(options.onTransaction ? { onTransaction: options.onTransaction } : {}),
        }),
      )
    : undefined;
  if (transactions) consumer.commitInTransactions((offsets) => transactions.send({ messages: [], offsets, replaceRefused: () => [] }));
  return {
    consumer,
    partitionCount,
    sender: tracedSender(createPartitionedSender(observed(produceCall(producer)), partitionCount, observed(produceCall(spanning)))),
    ...(transactions ? { transactions } : {}),
    close: async () => {
      await Promise.allSettled([producer.close(), spanning.close(), transactions?.close(), limits?.close()]);
    },
  };
}
