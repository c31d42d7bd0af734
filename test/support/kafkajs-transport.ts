import { readFileSync } from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import type { KafkaSecurity } from '../../src/config/kafka';

const readFile = (file: string | undefined): Buffer | undefined => (file === undefined ? undefined : readFileSync(file));

/**
 * The transport part of a kafkajs configuration (TLS files read now, SASL), for the tests' kafkajs
 * clients: they play partners and inspect topics on the kafkajs API while the service runs on its own client.
 */
export function kafkaTransport(security: KafkaSecurity | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const transport: Pick<KafkaConfig, 'ssl' | 'sasl'> = {};
  const { tls, sasl } = security ?? {};
  if (tls) {
    transport.ssl = {
      ca: readFile(tls.caFile),
      cert: readFile(tls.certFile),
      key: readFile(tls.keyFile),
      passphrase: tls.keyPassphrase,
      servername: tls.servername,
      rejectUnauthorized: tls.rejectUnauthorized,
    };
  }
  if (sasl) transport.sasl = { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions; // one object literal per mechanism in kafkajs's union
  return transport;
}
