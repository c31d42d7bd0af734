import { randomUUID } from 'node:crypto';
import type { KafkaConnection } from '../adapters/kafka/connection';
import { subscribeRecords, type RecordSubscription } from '../adapters/kafka/record-subscription';
import type { AvroCodec } from '../adapters/registry/avro-codec';
import type { ContractRecords, RecordName } from '../contract/types.generated';
import { headerText } from '../contract/headers';
import type { Logger } from '../contract/log';
import type { RecordHeaders, InboundRecord } from '../contract/transport';

/**
 * Subscription to the service's events: PortInActivationEvent on the port-in events topic and the billing
 * events on the balance events topic, decoded through the registry, with their CloudEvents attributes
 * (binary mode: ce_* headers). Consumed with the group and start position the caller chooses; read them
 * as an async iterator or hand a callback.
 */
export const EVENT_RECORDS = [
  'wholesale.portin.v1.PortInActivationEvent',
  'wholesale.balance.v1.SubscriptionActivated',
  'wholesale.balance.v1.SubscriptionCancelled',
  'wholesale.balance.v1.BucketsAdded',
  'wholesale.balance.v1.PrimaryBucketSwapped',
  'wholesale.balance.v1.BucketsCancelled',
  'wholesale.balance.v1.BalancesUpdated',
  'wholesale.balance.v1.BalancesRenewed',
  'wholesale.balance.v1.BalanceThresholdReached',
  'wholesale.balance.v1.BalancesExpired',
  'wholesale.portin.v1.PortOutEvent',
  'wholesale.portin.v1.PortOrderEvent',
  'wholesale.balance.v1.SubscriptionPortedOut',
  'wholesale.balance.v1.BalanceReserved',
  'wholesale.balance.v1.ReservationCommitted',
  'wholesale.balance.v1.ReservationReleased',
  'wholesale.balance.v1.ReservationExpired',
  'wholesale.balance.v1.BalanceToppedUp',
  'wholesale.balance.v1.BalanceAdjusted',
  'wholesale.balance.v1.BalanceTransferred',
  'wholesale.balance.v1.TransferReversed',
] as const satisfies readonly RecordName[];

export type EventRecordName = (typeof EVENT_RECORDS)[number];

/** CloudEvents attributes read from the ce_* headers (and content-type). */
export interface CloudEventAttributes {
  specversion?: string;
  id?: string;
  source?: string;
  type?: string;
  subject?: string;
  time?: string;
  datacontenttype?: string;
  correlationid?: string;
  causationid?: string;
  /** The registry address of the schema the value was written with. */
  dataschema?: string;
}

interface EventEnvelope {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka record timestamp (ms since the epoch, as text). */
  timestamp: string;
  cloudEvent: CloudEventAttributes;
  headers: Record<string, string>;
}

/** An event of a record type this client knows: narrow on `recordName` to get its typed value. */
export type KnownEvent = { [N in EventRecordName]: EventEnvelope & { known: true; recordName: N; value: ContractRecords[N] } }[EventRecordName];

/** A record type newer than this client, or a value that could not be decoded (then `error` says why). */
export interface UnknownEvent extends EventEnvelope {
  known: false;
  recordName: string;
  value: Record<string, unknown> | null;
  error?: string;
}

export type ContractEvent = KnownEvent | UnknownEvent;

export interface SubscribeEventsOptions {
  /** Consumer group; default a new one (`wholesale-events-<uuid>`), i.e. every subscription sees every event. */
  groupId?: string;
  /** Where a group without committed offsets starts; default false (only new events). */
  fromBeginning?: boolean;
  /** Topic names; default both event topics of the configuration. */
  topics?: string[];
  /** Callback mode: called for each event in order; the next waits for it. Without it, iterate the subscription. */
  onEvent?: (event: ContractEvent) => void | Promise<void>;
  /** Iterator mode: events buffered before the consumer pauses for the reader (default 1000). */
  bufferSize?: number;
  /** Callback mode: partitions whose events are handled at once, each partition in order (default 1). */
  partitionsConcurrently?: number;
}

const CE_ATTRIBUTES = ['specversion', 'id', 'source', 'type', 'subject', 'time', 'correlationid', 'causationid', 'dataschema'] as const;

function cloudEventOf(headers: RecordHeaders | undefined): CloudEventAttributes {
  const attributes: CloudEventAttributes = {};
  for (const name of CE_ATTRIBUTES) {
    const value = headerText(headers, `ce_${name}`);
    if (value !== undefined) attributes[name] = value;
  }
  const contentType = headerText(headers, 'content-type');
  if (contentType !== undefined) attributes.datacontenttype = contentType;
  return attributes;
}

const KNOWN = new Set<string>(EVENT_RECORDS);

export async function decodeEvent(codec: AvroCodec, topic: string, partition: number, message: InboundRecord): Promise<ContractEvent> {
  const headers = Object.fromEntries(Object.keys(message.headers ?? {}).map((name) => [name, headerText(message.headers, name) ?? '']));
  const envelope: EventEnvelope = {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? null,
    timestamp: message.timestamp,
    cloudEvent: cloudEventOf(message.headers),
    headers,
  };
  try {
    const { recordName, value } = await codec.decode(message.value);
    // The writer schema's record name says which contract record the value is.
    return KNOWN.has(recordName) ? ({ ...envelope, known: true, recordName, value } as unknown as KnownEvent) : { ...envelope, known: false, recordName, value };
  } catch (error) {
    return { ...envelope, known: false, recordName: '<undecodable>', value: null, error: (error as Error).message };
  }
}

export class EventSubscription implements AsyncIterable<ContractEvent> {
  /** Resolves once the consumer has joined its group and been assigned partitions. */
  readonly ready: Promise<void>;
  private readonly buffer: ContractEvent[] = [];
  private reader?: (result: IteratorResult<ContractEvent>) => void;
  private resumeProducer?: () => void;
  private closed = false;
  private readonly records: RecordSubscription;

  constructor(
    connection: KafkaConnection,
    private readonly codec: AvroCodec,
    private readonly options: SubscribeEventsOptions & { topics: string[] },
    private readonly log: Logger,
  ) {
    this.records = subscribeRecords(connection, {
      groupId: options.groupId ?? `wholesale-events-${randomUUID()}`,
      topics: options.topics,
      fromBeginning: options.fromBeginning ?? false,
      partitionsConcurrently: options.onEvent ? options.partitionsConcurrently : 1,
      onRecord: async (record, topic, partition) => {
        const event = await decodeEvent(this.codec, topic, partition, record);
        if (this.options.onEvent) await this.options.onEvent(event);
        else await this.push(event);
      },
    });
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    await this.records.started;
    await this.records.joined;
    this.log.debug({ topics: this.options.topics }, 'event subscription joined');
  }

  private push(event: ContractEvent): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reader) {
      const reader = this.reader;
      this.reader = undefined;
      reader({ value: event, done: false });
      return Promise.resolve();
    }
    this.buffer.push(event);
    if (this.buffer.length < (this.options.bufferSize ?? 1000)) return Promise.resolve();
    return new Promise((resolve) => (this.resumeProducer = resolve));
  }

  private next(): Promise<IteratorResult<ContractEvent>> {
    const event = this.buffer.shift();
    if (event !== undefined) {
      const resume = this.resumeProducer;
      this.resumeProducer = undefined;
      resume?.();
      return Promise.resolve({ value: event, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.reader = resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<ContractEvent> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.resumeProducer?.();
    this.reader?.({ value: undefined, done: true });
    this.reader = undefined;
    await this.records.stop();
  }
}
