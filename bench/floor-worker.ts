import type { Logger } from 'pino';
import { loadConfig, type ServiceConfig } from '../src/app/config';
import { kafkaConnection, serviceTopics } from '../src/app/service';
import { envelopeRules } from '../src/pipeline/envelope';
import { loadOptionalHierarchyFile } from '../src/security/hierarchy-file';
import type { CustomerHierarchy } from '../src/security/hierarchy';
import { defaultReplyTopic } from '../src/pipeline/reply-route';
import { ensureTopicsExist } from '../src/adapters/kafka/admin-session';
import { connectCommandTransport } from '../src/adapters/kafka/command-transport';
import { commandConsumerSettings, createBatchWorker } from '../src/app/batch-loop';
import { AvroCodec } from '../src/adapters/registry/avro-codec';
import { registerContract } from '../src/adapters/registry/register-contract';
import { COMMAND_TOPICS, type Domain } from '../src/contract/topics';
import type { DecodedRecord } from '../src/contract/codec';
import { createLogger, unredactedLogger } from '../src/observability/logger';
import type { RecordProcessor } from '../src/pipeline/batch-worker';
import { readEnvelope, type EnvelopeRules, type RoutedEnvelope } from '../src/pipeline/envelope';
import type { InboundRecord, Outbound, RecordPosition } from '../src/contract/transport';
import { replyMessage } from '../src/pipeline/outbound';

/**
 * The benchmark's floors (npm run bench, docs/benchmarks.md; not for production) share the service's
 * request/reply path: the same Kafka client settings, consumer group and batch loop (app/batch-worker.ts and
 * adapters/kafka/command-transport.ts: split by key, one call per batch, commit after), envelope reading,
 * Avro decoding over the same registry, answering on the acting node's partner topic, and the same
 * per-command log line. Each floor decides only what a command is answered with.
 */
export interface FloorWiring {
  config: ServiceConfig;
  log: Logger;
  codec: AvroCodec;
  rules: Readonly<Record<Domain, EnvelopeRules>>;
  hierarchy: CustomerHierarchy | undefined;
}

/** One decoded command, its envelope routed to where the service would answer it. */
export interface FloorCommand {
  domain: Domain;
  envelope: RoutedEnvelope;
  decoded: DecodedRecord;
  operation: string;
}

/** The messages a floor sends for a command, its reply first. */
export type FloorAnswer = (command: FloorCommand) => Promise<Outbound[]>;

/** The echo floor's fixed success record per reply: no state read, no handler logic, no events. */
const FIXED_REPLIES: Record<string, object> = {
  'wholesale.balance.v1.QueryBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.UpdateBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.AddBucketsReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.CancelBucketsReply': { status: 'Success', balances: [] },
  'wholesale.portin.v1.CheckPortInEligibilityReply': { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: '', reasonCode: null, reasonDesc: null },
};

/** How the echo floor answers: the fixed record of the command's operation (an eligibility check dated now). */
export const echoAnswer =
  ({ codec, rules }: FloorWiring): FloorAnswer =>
  async ({ domain, envelope, decoded }) => {
    const replyRecord = `${decoded.recordName}Reply`;
    const fixed = FIXED_REPLIES[replyRecord];
    if (!fixed) throw new Error(`the echo worker has no fixed reply for ${decoded.recordName}`);
    const value = replyRecord.endsWith('EligibilityReply') ? { ...fixed, checkedDate: new Date().toISOString() } : fixed;
    return [replyMessage(envelope, 'Success', await codec.encode(rules[domain].defaultReplyTopic, replyRecord, value))];
  };

async function runFloorWorker(name: string, answerer: (wiring: FloorWiring) => FloorAnswer | Promise<FloorAnswer>): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, name });
  const kafka = kafkaConnection(config, log);
  const hierarchy = loadOptionalHierarchyFile(config.customersFile);
  await ensureTopicsExist(kafka, serviceTopics(config, hierarchy), config.kafka.topicPartitions, config.kafka.topicReplicationFactor);
  const codec = new AvroCodec(config.schemaRegistryUrl);
  await registerContract(codec, config.topics);
  const rules = envelopeRules(config.topics, config.partnerTopicPrefix);
  const answer = await answerer({ config, log, codec, rules, hierarchy });

  const processors = new Map<string, RecordProcessor>();
  for (const [role, { domain }] of Object.entries(COMMAND_TOPICS) as [keyof typeof COMMAND_TOPICS, { domain: Domain }][]) {
    processors.set(config.topics[role], async (message: InboundRecord, position: RecordPosition) => {
      const envelope = readEnvelope(message.headers, position, rules[domain]);
      const decoded = await codec.decode(message.value);
      const operation = decoded.recordName.slice(decoded.recordName.lastIndexOf('.') + 1);
      // Answered where the service would answer: the acting node's partner topic (no token is checked here).
      const replyTopic = defaultReplyTopic(rules[domain], hierarchy?.node(envelope.wholesaleCustomerId)?.partnerId);
      const outbound = await answer({ domain, envelope: { ...envelope, replyTopic }, decoded, operation });
      return { outbound, outcome: 'Success', operation, correlationId: envelope.correlationId };
    });
  }

  // the service's delivery mode too (KAFKA_DELIVERY): the floors write their outputs as the service does
  const transport = await connectCommandTransport(
    kafka,
    commandConsumerSettings(config),
    config.kafka.delivery === 'exactly-once' ? { exactlyOnce: { commitIntervalMs: config.kafka.commitIntervalMs } } : {},
  );
  await transport.consumer.subscribe([...processors.keys()]);
  // The service's per-command log line, so every side pays for the same logging.
  const commandLines = unredactedLogger(log);
  const worker = createBatchWorker(config, transport, processors, log, (outcome, position, durationMs) =>
    commandLines.info(
      { correlationId: outcome.correlationId, operation: outcome.operation, ...position, outcome: outcome.outcome, durationMs: Math.round(durationMs * 10) / 10 },
      'command handled',
    ),
  );
  await worker.run();
  log.info(`${name} started`);
  const shutdown = () => {
    worker
      .stop()
      .then(() => transport.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** Runs a floor worker as its process's entry point. */
export function startFloorWorker(name: string, answerer: (wiring: FloorWiring) => FloorAnswer | Promise<FloorAnswer>): void {
  runFloorWorker(name, answerer).catch((error) => {
    process.stderr.write(`${name} failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
