import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { BaseOptions, SASLMechanismValue } from '@platformatic/kafka';
import type { KafkaSecurity, KafkaTlsSettings } from '../../config/kafka';
import type { Logger } from '../../contract/log';

/**
 * How a program reaches the cluster: what every function of this folder is given instead of a client
 * object, so nothing outside src/adapters/kafka holds one (or knows which Kafka client the service uses).
 */
export interface KafkaConnection {
  brokers: string[];
  clientId: string;
  log: Logger;
  security?: KafkaSecurity;
}

const readFile = (file: string | undefined): Buffer | undefined => (file === undefined ? undefined : readFileSync(file));

/** Node's TLS options for the settings: CA, client certificate and key read from their files now. */
export function tlsOptions(tls: KafkaTlsSettings): ConnectionOptions {
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
 * Retries of one request inside the client (a broker away, a leader or coordinator moving, a topic's
 * metadata not there yet). The client's default — 3 retries a second apart — gives up while a cluster
 * still moves a coordinator or creates __consumer_offsets (the client trial's broker-loss probe,
 * docs/decisions/kafka-client.md); this outlasts a broker's restart.
 */
export const REQUEST_RETRIES = 20;
export const REQUEST_RETRY_DELAY_MS = 500;

/**
 * The options every client of this folder starts from: brokers, client id, TLS (CA, client certificate and
 * key, read from their files now), SASL (PLAIN, SCRAM-SHA-256/512) and the retries above. Used by the
 * service, the NP simulator, the client library and the CLI alike.
 */
export function clientOptions(connection: KafkaConnection, suffix?: string): BaseOptions {
  const { security } = connection;
  return {
    clientId: suffix ? `${connection.clientId}-${suffix}` : connection.clientId,
    bootstrapBrokers: connection.brokers,
    retries: REQUEST_RETRIES,
    retryDelay: REQUEST_RETRY_DELAY_MS,
    ...(security?.tls ? { tls: tlsOptions(security.tls) } : {}),
    ...(security?.sasl ? { sasl: { mechanism: security.sasl.mechanism.toUpperCase() as SASLMechanismValue, username: security.sasl.username, password: security.sasl.password } } : {}),
  };
}
