import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Kafka, Partitioners, logLevel, type KafkaConfig, type LogEntry, type Producer, type SASLOptions } from 'kafkajs';
import type { KafkaSecurity, KafkaTlsSettings } from '../../config/kafka';
import type { KafkaConnection } from './connection';
import { installFetchMessages } from './fetch-messages';
import { installPooledEncoder } from './pooled-encoder';
import { installRecordDecoder } from './record-decoder';
import { installRecordEncoder } from './record-encoder';

const readFile = (file: string | undefined): Buffer | undefined => (file === undefined ? undefined : readFileSync(file));

function tlsOptions(tls: KafkaTlsSettings): ConnectionOptions {
  return {
    ca: readFile(tls.caFile),
    cert: readFile(tls.certFile),
    key: readFile(tls.keyFile),
    passphrase: tls.keyPassphrase,
    servername: tls.servername,
    rejectUnauthorized: tls.rejectUnauthorized,
  };
}

/**
 * The transport part of a kafkajs configuration: TLS (CA, client certificate and key, read from their
 * files now) and SASL (PLAIN, SCRAM-SHA-256/512), for the kafkajs clients still made here.
 */
function kafkaTransport(security: KafkaSecurity | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const transport: Pick<KafkaConfig, 'ssl' | 'sasl'> = {};
  if (security?.tls) transport.ssl = tlsOptions(security.tls);
  if (security?.sasl) {
    const { mechanism, username, password } = security.sasl;
    transport.sasl = { mechanism, username, password } as SASLOptions; // one object literal per mechanism in kafkajs's union
  }
  return transport;
}

export type { KafkaConnection } from './connection';

/**
 * kafkajs with its log lines routed into the program's logger, so one log stream carries everything, and its
 * encoding and record decoding patched (pooled-encoder.ts, record-encoder.ts, record-decoder.ts, fetch-messages.ts).
 */
export function createKafka(options: KafkaConnection): Kafka {
  installPooledEncoder();
  const log = options.log.child({ component: 'kafkajs' });
  if (!installRecordEncoder()) log.warn("kafkajs's produce request was loaded before its record encoder could be replaced: records are encoded by kafkajs's own (slower, the same bytes)");
  if (!installRecordDecoder()) log.warn("kafkajs's record batch decoder was loaded before its record decoder could be replaced: records are decoded by kafkajs's own (slower, the same records)");
  if (!installFetchMessages()) log.warn("kafkajs's fetch responses were loaded before their batch decoding could be replaced: a batch of ~125,000 records or more will crash the consumer");
  const toPino = (level: logLevel) => {
    switch (level) {
      case logLevel.ERROR:
        return 'error' as const;
      case logLevel.WARN:
        return 'warn' as const;
      case logLevel.INFO:
        return 'info' as const;
      default:
        return 'debug' as const;
    }
  };
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...kafkaTransport(options.security),
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      log[toPino(entry.level)]({ namespace: entry.namespace, ...extra }, message);
    },
  });
}

/**
 * Producers of this project: the Java-compatible murmur2 partitioner (kafkajs's default since 2.0, named
 * explicitly), so a key lands on the same partition whichever language produced it; never auto-create
 * topics. `ordered`: one request in flight per broker, so a retry never puts a later send of the same
 * partition first — for callers that fire sends without waiting for the previous one (the NP simulator).
 * The worker does not need it: each partition's batch waits for its sends before the next batch, so two
 * requests in flight never carry the same key; and with it every partition's sends queued behind one
 * request on the one connection to a broker (measured: throughput capped near 2,100 commands/s).
 * Not kafkajs's idempotent mode: after a partition leader moved it failed with a non-retriable "out of
 * order sequence number" that stopped the worker (fault suite, three-broker cluster). Without it a retried
 * send may write a reply or an event twice, which the contract allows: replies are matched by
 * X-Correlation-Id and events de-duplicated by ce_id, and effects are recorded per command in Redis.
 */
export function createProducer(kafka: Kafka, options: { ordered: boolean; once?: boolean }): Producer {
  return kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
    ...(options.ordered ? { maxInFlightRequests: 1 } : {}),
    // `once`: a failed request is not retried inside kafkajs, whose retry of a call spanning partitions can
    // drop messages (see partitioned-sender.ts); the caller sends again in its own way.
    ...(options.once ? { retry: { retries: 0 } } : {}),
  });
}
