import { randomUUID } from 'node:crypto';
import { endSpan, headersOfSpan, SpanKind, startSpan } from '../shared/tracing';
import type { ClientConfig } from './config';
import type { KafkaConnection } from '../adapters/kafka/connection';
import { connectRecordProducer, type RecordProducer } from '../adapters/kafka/record-producer';
import { ReplyListener } from '../adapters/kafka/reply-listener';
import { AvroCodec } from '../adapters/registry/avro-codec';
import { HEADER, headerText } from '../contract/headers';
import type { Logger } from '../contract/log';
import type { InboundRecord } from '../contract/transport';
import { createClientLogger } from './log';
import { asInvalidCommand, ClientClosedError } from './errors';
import { EventSubscription, type SubscribeEventsOptions } from './events';
import { commandKey, OPERATIONS, type OperationInput, type OperationName, type OperationReply } from './operations';
import { PendingReplies } from './pending-replies';
import { interpretReply, type DecodedReply } from './replies';
import { partnerOfRequester, requesterTopics, type RequesterTopics } from './partner';

/**
 * A typed requester for the wholesale port-in and balance service over Kafka. One producer and one reply
 * consumer per instance, shared by every call; many calls may be in flight at once, each settled by its
 * own reply (matched on X-Correlation-Id), its own timeout, or the client's close.
 */
export interface WholesaleClientOptions {
  /** Kafka, registry and topic names — `loadClientConfig()` reads the same variables as the service. */
  config: ClientConfig;
  log?: Logger;
  /** Called for every command; the token travels as `Authorization: Bearer <token>` (else `config.token`, if any). */
  tokenProvider?: () => Promise<string>;
  /** wholesaleCustomerId header of every call that does not name its own (else `config.wholesaleCustomerId`). */
  wholesaleCustomerId?: string;
  /**
   * The partner acted for: replies are read on its own reply topics, events on its event topics, with
   * consumer groups in its namespace. Default `config.partnerId`, else the partner root of the customer
   * acted for in `config.customersFile`, else the legacy shared reply topics (AUTH_MODE=none only).
   */
  partnerId?: string;
}

export interface CallOptions {
  /** X-Correlation-Id of this call; default a new UUID. Reusing one makes the service answer with its first reply. */
  correlationId?: string;
  /** Acts for this node of the customer hierarchy (header wholesaleCustomerId). */
  wholesaleCustomerId?: string;
  /** Reply timeout of this call; default `config.requestTimeoutMs` (5000). */
  timeoutMs?: number;
  /** Bearer token of this call (a gateway passes each caller's own through); default the tokenProvider's, else `config.token`. */
  token?: string;
}

export class WholesaleClient {
  private readonly pending = new PendingReplies<DecodedReply>();
  private readonly subscriptions = new Set<EventSubscription>();
  private listener?: ReplyListener;
  private closing?: Promise<void>;

  private constructor(
    readonly config: ClientConfig,
    private readonly connection: KafkaConnection,
    private readonly codec: AvroCodec,
    private readonly producer: RecordProducer,
    private readonly options: WholesaleClientOptions,
    private readonly log: Logger,
    /** The reply and event topics of the partner acted for (or the legacy shared ones). */
    readonly topics: RequesterTopics,
  ) {}

  /** Connects the producer and the reply consumer; resolves once replies can no longer be missed. */
  static async connect(options: WholesaleClientOptions): Promise<WholesaleClient> {
    const { config } = options;
    const log = options.log ?? createClientLogger({ level: config.logLevel, name: 'wholesale-client' });
    const connection: KafkaConnection = { brokers: config.kafka.brokers, clientId: config.kafka.clientId, log, security: config.kafka.security };
    const producer = await connectRecordProducer(connection, { ordered: false, batched: true });
    const topics = requesterTopics(config, partnerOfRequester(config, options.partnerId, options.wholesaleCustomerId));
    const client = new WholesaleClient(config, connection, new AvroCodec(config.schemaRegistryUrl), producer, options, log, topics);
    try {
      client.listener = await ReplyListener.start(connection, {
        topics: [...new Set([topics.replies.portin, topics.replies.balance])],
        groupId: `${topics.groupPrefix}${config.kafka.clientId}-replies-${config.instanceId ?? randomUUID()}`,
        ...(config.instanceId ? { groupInstanceId: config.instanceId } : {}),
        onMessage: (message) => client.onReply(message),
      });
    } catch (error) {
      await producer.disconnect();
      throw error;
    }
    return client;
  }

  checkPortInEligibility(input: OperationInput<'checkPortInEligibility'>, options?: CallOptions) {
    return this.call('checkPortInEligibility', input, options);
  }

  createPortIn(input: OperationInput<'createPortIn'>, options?: CallOptions) {
    return this.call('createPortIn', input, options);
  }

  updatePortIn(input: OperationInput<'updatePortIn'>, options?: CallOptions) {
    return this.call('updatePortIn', input, options);
  }

  cancelPortIn(input: OperationInput<'cancelPortIn'>, options?: CallOptions) {
    return this.call('cancelPortIn', input, options);
  }

  queryPortIn(input: OperationInput<'queryPortIn'>, options?: CallOptions) {
    return this.call('queryPortIn', input, options);
  }

  /** Activation on demand: cut a CONFIRMED port over now, inside its activation window (docs/portin.md#the-foc-date). */
  activatePortIn(input: OperationInput<'activatePortIn'>, options?: CallOptions) {
    return this.call('activatePortIn', input, options);
  }

  /** Approve or reject a port-out of one of the partner's numbers (docs/port-out.md). */
  answerPortOut(input: OperationInput<'answerPortOut'>, options?: CallOptions) {
    return this.call('answerPortOut', input, options);
  }

  queryPortOut(input: OperationInput<'queryPortOut'>, options?: CallOptions) {
    return this.call('queryPortOut', input, options);
  }

  /** Port in up to 1,000 numbers as one order; retried under the same orderId it is the same order (docs/port-orders.md). */
  createPortOrder(input: OperationInput<'createPortOrder'>, options?: CallOptions) {
    return this.call('createPortOrder', input, options);
  }

  /** The order's status derived from its numbers, and each number's. */
  queryPortOrder(input: OperationInput<'queryPortOrder'>, options?: CallOptions) {
    return this.call('queryPortOrder', input, options);
  }

  /** Cancel every number of an order still in progress, or the one named by gpsi. */
  cancelPortOrder(input: OperationInput<'cancelPortOrder'>, options?: CallOptions) {
    return this.call('cancelPortOrder', input, options);
  }

  checkPortOrderEligibility(input: OperationInput<'checkPortOrderEligibility'>, options?: CallOptions) {
    return this.call('checkPortOrderEligibility', input, options);
  }

  addBuckets(input: OperationInput<'addBuckets'>, options?: CallOptions) {
    return this.call('addBuckets', input, options);
  }

  swapPrimaryBucket(input: OperationInput<'swapPrimaryBucket'>, options?: CallOptions) {
    return this.call('swapPrimaryBucket', input, options);
  }

  cancelBuckets(input: OperationInput<'cancelBuckets'>, options?: CallOptions) {
    return this.call('cancelBuckets', input, options);
  }

  queryBalances(input: OperationInput<'queryBalances'>, options?: CallOptions) {
    return this.call('queryBalances', input, options);
  }

  updateBalances(input: OperationInput<'updateBalances'>, options?: CallOptions) {
    return this.call('updateBalances', input, options);
  }

  queryBalanceHistory(input: OperationInput<'queryBalanceHistory'>, options?: CallOptions) {
    return this.call('queryBalanceHistory', input, options);
  }

  reserveBalance(input: OperationInput<'reserveBalance'>, options?: CallOptions) {
    return this.call('reserveBalance', input, options);
  }

  commitReservation(input: OperationInput<'commitReservation'>, options?: CallOptions) {
    return this.call('commitReservation', input, options);
  }

  releaseReservation(input: OperationInput<'releaseReservation'>, options?: CallOptions) {
    return this.call('releaseReservation', input, options);
  }

  topupBalance(input: OperationInput<'topupBalance'>, options?: CallOptions) {
    return this.call('topupBalance', input, options);
  }

  adjustBalance(input: OperationInput<'adjustBalance'>, options?: CallOptions) {
    return this.call('adjustBalance', input, options);
  }

  transferBalance(input: OperationInput<'transferBalance'>, options?: CallOptions) {
    return this.call('transferBalance', input, options);
  }

  /**
   * Sends one command and awaits its reply. Rejects with ServiceReplyError (an ErrorReply: code, message,
   * problems), RequestTimeoutError, ClientClosedError, or the Kafka/registry failure that kept it from being sent.
   */
  async call<O extends OperationName>(operation: O, input: OperationInput<O>, options: CallOptions = {}): Promise<OperationReply<O>> {
    if (this.closing) throw new ClientClosedError(operation);
    const spec = OPERATIONS[operation];
    const correlationId = options.correlationId ?? randomUUID();
    const replied = this.pending.wait(operation, correlationId, options.timeoutMs ?? this.config.requestTimeoutMs);
    replied.catch(() => undefined); // awaited below; this only keeps an early timeout from counting as unhandled
    // The request's span: from the send to its reply; the command carries its traceparent (tracing on).
    const topic = this.topics.commands[spec.commandTopic];
    const span = startSpan(`send ${operation}`, {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.message.conversation_id': correlationId },
    });
    try {
      // the schema ids are registered under the shared command topic's subjects, whichever topic carries the command
      const schemaTopic = this.config.topics[spec.commandTopic];
      const [value, headers] = await Promise.all([this.codec.encode(schemaTopic, spec.command, input), this.headersFor(correlationId, options)]);
      await this.producer.send({ topic, key: commandKey(input), value, headers: span ? { ...headers, ...headersOfSpan(span) } : headers });
    } catch (error) {
      this.pending.fail(correlationId, asInvalidCommand(operation, error) ?? error);
    }
    try {
      const reply = interpretReply(operation, correlationId, await replied);
      endSpan(span);
      return reply;
    } catch (error) {
      endSpan(span, (error as Error).message);
      throw error;
    }
  }

  /**
   * Events of the service (port-in activation, billing), decoded; iterate it or pass `onEvent`. Close it, or
   * close the client. By default the partner's own event topics (the operator's full topics without a partner).
   */
  subscribeEvents(options: SubscribeEventsOptions = {}): EventSubscription {
    if (this.closing) throw new ClientClosedError('subscribeEvents');
    const topics = options.topics ?? [this.topics.events.portin, this.topics.events.balance];
    const groupId = options.groupId ?? `${this.topics.groupPrefix}wholesale-events-${randomUUID()}`;
    const subscription = new EventSubscription(this.connection, this.codec, { ...options, topics, groupId }, this.log);
    this.subscriptions.add(subscription);
    subscription.ready.catch(() => undefined); // the caller awaits it if it cares
    return subscription;
  }

  /** Calls still waiting for their reply. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Rejects the calls still waiting, closes the event subscriptions, disconnects. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.pending.close();
      await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
      await this.listener?.stop();
      await this.producer.disconnect();
    })();
    return this.closing;
  }

  private async headersFor(correlationId: string, options: CallOptions): Promise<Record<string, string>> {
    const headers: Record<string, string> = { [HEADER.correlationId]: correlationId };
    const customer = options.wholesaleCustomerId ?? this.options.wholesaleCustomerId ?? this.config.wholesaleCustomerId;
    if (customer !== undefined) headers[HEADER.wholesaleCustomerId] = customer;
    const token = options.token ?? (this.options.tokenProvider ? await this.options.tokenProvider() : this.config.token);
    if (token !== undefined) headers[HEADER.authorization] = `Bearer ${token}`;
    return headers;
  }

  /** Only replies somebody waits for are decoded; the rest (other requesters', late ones) are skipped. */
  private onReply(message: InboundRecord): void {
    const correlationId = headerText(message.headers, HEADER.correlationId);
    if (correlationId === undefined || !this.pending.has(correlationId)) return;
    this.codec.decode(message.value).then(
      (reply) => this.pending.resolve(correlationId, reply),
      (error) => this.pending.fail(correlationId, error),
    );
  }
}
