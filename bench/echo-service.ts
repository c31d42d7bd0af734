import { loadConfig } from '../src/app/config';
import { envelopeRules, kafkaConnection, serviceTopics } from '../src/app/service';
import { loadOptionalHierarchyFile } from '../src/security/hierarchy-file';
import { defaultReplyTopic } from '../src/pipeline/reply-route';
import { ensureTopicsExist } from '../src/adapters/kafka/admin-session';
import { connectCommandTransport } from '../src/adapters/kafka/command-transport';
import { commandConsumerSettings, createBatchWorker } from '../src/app/batch-worker';
import { AvroCodec } from '../src/adapters/registry/avro-codec';
import { registerContract } from '../src/adapters/registry/register-contract';
import { COMMAND_TOPICS, type Domain } from '../src/contract/topics';
import { createLogger, unredactedLogger } from '../src/observability/logger';
import type { RecordProcessor } from '../src/pipeline/batch-worker';
import { readEnvelope } from '../src/pipeline/envelope';
import type { InboundRecord, RecordPosition } from '../src/contract/transport';
import { replyMessage } from '../src/pipeline/outbound';

/**
 * The benchmark's floor (npm run bench, docs/benchmarks.md; not for production): the service's
 * request/reply path without its state. Same Kafka client settings, consumer group and batch loop
 * (app/batch-worker.ts and adapters/kafka/command-transport.ts: split by key, one topic-partition per send, commit after), envelope reading, Avro codec
 * over the same registry, and the same per-command log line — but every command is answered with a fixed
 * success record of its operation, without Redis and without handler logic.
 */
const FIXED_REPLIES: Record<string, object> = {
  'wholesale.balance.v1.QueryBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.UpdateBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.AddBucketsReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.CancelBucketsReply': { status: 'Success', balances: [] },
  'wholesale.portin.v1.CheckPortInEligibilityReply': { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: '', reasonCode: null, reasonDesc: null },
};

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, name: 'echo-worker' });
  const kafka = kafkaConnection(config, log);
  const hierarchy = loadOptionalHierarchyFile(config.customersFile);
  await ensureTopicsExist(kafka, serviceTopics(config, hierarchy), config.kafka.topicPartitions, config.kafka.topicReplicationFactor);
  const codec = new AvroCodec(config.schemaRegistryUrl);
  await registerContract(codec, config.topics);
  const rules = envelopeRules(config);

  const processors = new Map<string, RecordProcessor>();
  for (const [role, { domain }] of Object.entries(COMMAND_TOPICS) as [keyof typeof COMMAND_TOPICS, { domain: Domain }][]) {
    processors.set(config.topics[role], async (message: InboundRecord, position: RecordPosition) => {
      const envelope = readEnvelope(message.headers, position, rules[domain]);
      const decoded = await codec.decode(message.value);
      const replyRecord = `${decoded.recordName}Reply`;
      const fixed = FIXED_REPLIES[replyRecord];
      if (!fixed) throw new Error(`the echo worker has no fixed reply for ${decoded.recordName}`);
      const value = replyRecord.endsWith('EligibilityReply') ? { ...fixed, checkedDate: new Date().toISOString() } : fixed;
      const encoded = await codec.encode(rules[domain].defaultReplyTopic, replyRecord, value);
      const operation = decoded.recordName.slice(decoded.recordName.lastIndexOf('.') + 1);
      // Answered where the service would answer: the acting node's partner topic (no token is checked here).
      const replyTopic = defaultReplyTopic(rules[domain], hierarchy?.node(envelope.wholesaleCustomerId)?.partnerId);
      return { outbound: [replyMessage({ ...envelope, replyTopic }, 'Success', encoded)], outcome: 'Success', operation, correlationId: envelope.correlationId };
    });
  }

  const transport = await connectCommandTransport(kafka, commandConsumerSettings(config));
  await transport.consumer.subscribe([...processors.keys()]);
  // The service's per-command log line, so both sides pay for the same logging.
  const commandLines = unredactedLogger(log);
  const worker = createBatchWorker(config, transport, processors, log, (outcome, position, durationMs) =>
    commandLines.info({ correlationId: outcome.correlationId, operation: outcome.operation, ...position, outcome: outcome.outcome, durationMs: Math.round(durationMs * 10) / 10 }, 'command handled'),
  );
  await worker.run();
  log.info('echo worker started');
  const shutdown = () => {
    worker
      .stop()
      .then(() => transport.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error) => {
  process.stderr.write(`echo worker failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
