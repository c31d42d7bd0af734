import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TopicRole } from '../contract/topics';
import type { PartitionLag, SentMessage } from '../contract/transport';
import { DLQ_HEADER, headerText } from '../contract/headers';

/**
 * The service's Prometheus metrics, in a registry of its own (two services in one process — tests —
 * never collide). The worker, the producer and the Redis seams report through plain callbacks
 * (commandHandled, messagesSent, redisCall), so none of them imports prom-client.
 * Names and labels are listed in docs/operations.md.
 */
export const METRIC_PREFIX = 'wholesale_';

export interface HandledCommand {
  operation?: string;
  /** "Success", an error code, "REPLAYED", "DEAD_LETTER", or an NP response outcome. */
  outcome: string;
  durationMs: number;
  /** Milliseconds since the record's timestamp when it was handled. */
  ageMs?: number;
  /** A refused command (UNAUTHORIZED, FORBIDDEN): answered, recorded (DLQ) or, past the sender's budget, dropped. */
  rejection?: { reason: string; action: string };
}

export interface MetricsOptions {
  topics: Readonly<Record<TopicRole, string>>;
  /** Consumer lag of the group, read at scrape time; omitted → no lag series. */
  lag?: () => Promise<PartitionLag[]>;
  /** Assigned partitions of this instance, read at scrape time. */
  assignedPartitions?: () => number;
  /** Partitions this instance holds paused behind a record that failed retriably, read at scrape time. */
  heldPartitions?: () => number;
  /** Process metrics (CPU, memory, event loop lag, GC): on by default. */
  processMetrics?: boolean;
}

/** Topics whose messages count as published events (NP requests are events for the NP system). */
const EVENT_ROLES: readonly TopicRole[] = ['portinEvents', 'balanceEvents', 'npRequests'];

const seconds = (ms: number): number => ms / 1000;

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly commands: Counter<'operation' | 'outcome'>;
  private readonly duration: Histogram<'operation'>;
  private readonly age: Histogram<'operation'>;
  private readonly deadLetters: Counter<'reason'>;
  private readonly rejected: Counter<'reason' | 'action'>;
  private readonly events: Counter<'topic'>;
  private readonly redisDuration: Histogram<'operation' | 'result'>;
  private readonly transactions: Histogram<'outcome'>;
  private readonly eventTopics: ReadonlySet<string>;
  private readonly deadLetterTopic: string;

  constructor(options: MetricsOptions) {
    const registers = [this.registry];
    this.eventTopics = new Set(EVENT_ROLES.map((role) => options.topics[role]));
    this.deadLetterTopic = options.topics.deadLetters;
    this.commands = new Counter({
      name: `${METRIC_PREFIX}commands_total`,
      help: 'Command records handled, by operation (record name without namespace) and outcome (Success, error code, REPLAYED, DEAD_LETTER).',
      labelNames: ['operation', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: `${METRIC_PREFIX}command_duration_seconds`,
      help: 'Time to handle one command record: decode, handler (a change replaying included), encode (not the Kafka send).',
      labelNames: ['operation'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.age = new Histogram({
      name: `${METRIC_PREFIX}command_age_seconds`,
      help: 'End-to-end age of a command when handled: now minus the record timestamp.',
      labelNames: ['operation'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.deadLetters = new Counter({
      name: `${METRIC_PREFIX}dead_letters_total`,
      help: 'Records sent to the dead-letter topic, by reason (x-dlq-reason).',
      labelNames: ['reason'],
      registers,
    });
    this.rejected = new Counter({
      name: `${METRIC_PREFIX}rejected_commands_total`,
      help: "Refused commands by reason (UNAUTHORIZED, FORBIDDEN) and action: answered, recorded (dead-letter topic) or dropped (past the sender's budget: only counted).",
      labelNames: ['reason', 'action'],
      registers,
    });
    this.events = new Counter({
      name: `${METRIC_PREFIX}events_published_total`,
      help: 'Events acknowledged by Kafka, by topic (port-in events, balance events, NP requests).',
      labelNames: ['topic'],
      registers,
    });
    this.redisDuration = new Histogram({
      name: `${METRIC_PREFIX}redis_call_duration_seconds`,
      help: 'Duration of Redis calls: Lua scripts by name (admissionTake is the partner rate and quota), the two pipelined reads of balancesQuery and portinEligibility; result ok or error.',
      labelNames: ['operation', 'result'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.transactions = new Histogram({
      name: `${METRIC_PREFIX}output_transaction_duration_seconds`,
      help: 'Output transactions (KAFKA_DELIVERY=exactly-once) from begin to commit, by outcome: committed, or aborted (its units are sent again); the _count series count them.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    // Present at 0 from the start, so an alert on aborts reads a series, not an absent one.
    for (const outcome of ['committed', 'aborted'] as const) this.transactions.zero({ outcome });
    if (options.lag) this.registerLag(options.lag);
    if (options.assignedPartitions)
      this.registerReading('consumer_assigned_partitions', 'Partitions assigned to this instance by the consumer group (0 while rebalancing).', options.assignedPartitions);
    if (options.heldPartitions) {
      const help = 'Partitions this instance holds paused behind a record that failed retriably (Redis or Kafka away, a follow-up not done), retried until done.';
      this.registerReading('consumer_held_partitions', help, options.heldPartitions);
    }
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge read at scrape time. */
  private registerReading(name: string, help: string, read: () => number): void {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  private registerLag(read: () => Promise<PartitionLag[]>): void {
    new Gauge({
      name: `${METRIC_PREFIX}consumer_lag`,
      help: "Records not yet committed by the worker group, per topic and partition (end offset minus the group's committed offset).",
      labelNames: ['topic', 'partition'],
      registers: [this.registry],
      async collect() {
        this.reset();
        // No answer from Kafka: no series rather than stale numbers (alert on absent()).
        const lags = await read().catch(() => []);
        for (const { topic, partition, lag } of lags) this.set({ topic, partition: String(partition) }, lag);
      },
    });
  }

  readonly commandHandled = (command: HandledCommand): void => {
    const operation = command.operation ?? 'unknown';
    this.commands.inc({ operation, outcome: command.outcome });
    this.duration.observe({ operation }, seconds(command.durationMs));
    if (command.ageMs !== undefined) this.age.observe({ operation }, seconds(Math.max(0, command.ageMs)));
    if (command.rejection) this.rejected.inc(command.rejection);
  };

  readonly messagesSent = (messages: readonly SentMessage[]): void => {
    for (const message of messages) {
      if (message.topic === this.deadLetterTopic) this.deadLetters.inc({ reason: headerText(message.headers, DLQ_HEADER.reason) ?? 'unknown' });
      else if (this.eventTopics.has(message.topic)) this.events.inc({ topic: message.topic });
    }
  };

  readonly transactionEnded = (outcome: 'committed' | 'aborted', durationMs: number): void => {
    this.transactions.observe({ outcome }, seconds(durationMs));
  };

  readonly redisCall = (operation: string, durationMs: number, failed: boolean): void => {
    this.redisDuration.observe({ operation, result: failed ? 'error' : 'ok' }, seconds(durationMs));
  };

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
