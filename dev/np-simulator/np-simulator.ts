import type { Context } from '@opentelemetry/api';
import type { Logger } from '../../src/contract/log';
import type { NpSimulatorConfig } from './config';
import { loadSchemas } from '../../src/adapters/registry/schemas';
import { connectRecordProducer } from '../../src/adapters/kafka/record-producer';
import { subscribeRecords } from '../../src/adapters/kafka/record-subscription';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { DecodeError } from '../../src/contract/codec';
import { NP_RESPONSE_RECORDS } from '../../src/domain/portin/records';
import { PORTOUT_NP_RESPONSE_RECORDS } from '../../src/domain/port-out/records';
import { isPortOutDecision, planPortOutDecision, type SimPortOutDecision } from './port-out';
import { isActivationRequest, planActivationOnDemand } from './activation';
import { contextFromHeaders, endSpan, headersOfSpan, SpanKind, startSpan } from '../../src/shared/tracing';
import { createResponsePlayer } from './response-player';
import { plan, supersedesPending, type ScheduledResponse, type SimRequest } from './rules';

/**
 * The NP application, simulated: consumes np.portin.requests.v1, plays the rules of rules.ts and produces
 * np.portin.responses.v1 (Avro through the registry, key gpsi). Waits are divided by the time scale, so a
 * whole port runs in seconds in tests. Pending responses live in memory: a restart forgets them (a
 * simulator, not the NP application), and a cancel the rules accept drops those of its request.
 */
export interface NpSimulator {
  /** Resolves once the consumer joined its group (requests sent after this are seen). */
  readonly joined: Promise<void>;
  stop(): Promise<void>;
}

export interface NpSimulatorOptions {
  log: Logger;
  /** Read the requests topic from its beginning when the group has no offsets (default true). */
  fromBeginning?: boolean;
  clock?: () => Date;
}

export async function startNpSimulator(config: NpSimulatorConfig, options: NpSimulatorOptions): Promise<NpSimulator> {
  const { log } = options;
  const clock = options.clock ?? (() => new Date());
  const codec = new AvroCodec(config.schemaRegistryUrl);
  // the simulator produces the NP responses, so it registers their schemas (idempotent)
  const schemas = loadSchemas();
  for (const recordName of [...Object.values(NP_RESPONSE_RECORDS), ...Object.values(PORTOUT_NP_RESPONSE_RECORDS)]) {
    await codec.register(config.topics.npResponses, schemas.get(recordName)!, recordName);
  }
  const connection = { ...config.kafka, log };
  const producer = await connectRecordProducer(connection, { ordered: true, batched: false });

  /** A response continues the trace of the request it answers (its `traceparent`), as a real NP gateway would. */
  const send = async (recordName: string, key: string, value: Record<string, unknown>, cause: Context) => {
    const encoded = await codec.encode(config.topics.npResponses, recordName, { ...value, sentAt: clock().toISOString() });
    const span = startSpan(`${config.topics.npResponses} publish`, { kind: SpanKind.PRODUCER, parent: cause, attributes: { 'messaging.system': 'kafka', 'wholesale.np.record': recordName } });
    try {
      await producer.send({ topic: config.topics.npResponses, key, value: encoded, headers: span ? headersOfSpan(span) : {} });
      endSpan(span);
    } catch (error) {
      endSpan(span, (error as Error).message);
      throw error;
    }
    log.info({ recordName, gpsi: key, requestId: value.requestId, portOrderVersion: value.portOrderVersion }, 'NP response sent');
  };

  // One number's responses leave in the order their timers fired: a send first encodes, and the first
  // encode of a record looks its schema id up in the registry, so a later response of an already-cached
  // record could otherwise overtake it (seen: PortConfirmed before PortDelayed, the delay then ignored).
  const sendChains = new Map<string, Promise<void>>();
  const sendInOrder = (recordName: string, key: string, value: Record<string, unknown>, cause: Context) => {
    const sent = (sendChains.get(key) ?? Promise.resolve())
      .then(() => send(recordName, key, value, cause))
      .catch((error: unknown) => log.error({ err: error, recordName }, 'NP response not sent'));
    sendChains.set(key, sent);
    void sent.then(() => {
      if (sendChains.get(key) === sent) sendChains.delete(key);
    });
  };

  type Due = ScheduledResponse & { gpsi: string; cause: Context };
  const player = createResponsePlayer<Due>(config.timeScale, (due) => sendInOrder(due.recordName, due.gpsi, due.value, due.cause));
  // a newer version, or a cancel taken, supersedes what the order still had pending
  const schedule = (request: SimRequest & { cause: Context }) =>
    player.play(
      request.requestId,
      plan(request, clock()).map((response) => ({ ...response, gpsi: request.gpsi, cause: request.cause })),
      supersedesPending(request),
    );

  const requests = subscribeRecords(connection, {
    groupId: config.groupId,
    topics: [config.topics.npRequests],
    fromBeginning: options.fromBeginning ?? true,
    onRecord: async (message) => {
      let decoded;
      try {
        decoded = await codec.decode(message.value);
      } catch (error) {
        if (error instanceof DecodeError) {
          log.warn({ reason: error.reason }, 'NP request skipped: undecodable');
          return;
        }
        throw error;
      }
      if (isPortOutDecision(decoded.recordName)) {
        const decision = { ...(decoded.value as unknown as SimPortOutDecision), recordName: decoded.recordName };
        log.info({ recordName: decision.recordName, gpsi: decision.gpsi, portOutId: decision.portOutId, decision: decision.decision }, 'NP port-out decision received');
        const cause = contextFromHeaders(message.headers);
        player.play(
          `port-out:${decision.portOutId}`,
          planPortOutDecision(decision).map((response) => ({ ...response, gpsi: decision.gpsi, cause })),
          true,
        );
        return;
      }
      const request = { ...(decoded.value as unknown as SimRequest), recordName: decoded.recordName, cause: contextFromHeaders(message.headers) };
      log.info({ recordName: request.recordName, gpsi: request.gpsi, requestId: request.requestId, portOrderVersion: request.portOrderVersion }, 'NP request received');
      if (isActivationRequest(request.recordName)) {
        player.play(
          request.requestId,
          planActivationOnDemand(request, clock()).map((response) => ({ ...response, gpsi: request.gpsi, cause: request.cause })),
          true,
        );
        return;
      }
      schedule(request);
    },
  });
  await requests.started;

  return {
    joined: requests.joined,
    async stop() {
      player.stop();
      await requests.stop();
      await producer.disconnect();
    },
  };
}
