import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { tlsOptions } from '../../src/adapters/kafka/connection';
import type { KafkaSecurity } from '../../src/config/kafka';

/**
 * The transport part of a kafkajs configuration (TLS files read now, SASL), for the tests' kafkajs
 * clients: they play partners and inspect topics on the kafkajs API while the service runs on its own client.
 */
export function kafkaTransport(security: KafkaSecurity | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const transport: Pick<KafkaConfig, 'ssl' | 'sasl'> = {};
  const { tls, sasl } = security ?? {};
  if (tls) transport.ssl = tlsOptions(tls);
  if (sasl) transport.sasl = { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions; // one object literal per mechanism in kafkajs's union
  return transport;
}
