import { connectClusterProbe } from '../adapters/kafka/cluster-probe';
import type { Logger } from '../contract/log';
import type { ClientConfig } from './config';

/** Asks the Kafka cluster of a requester's settings whether it answers (a gateway's readiness), over one admin client. */
export interface BrokerProbe {
  /** The brokers the cluster's metadata lists; rejects when no broker answers. */
  brokerCount(): Promise<number>;
  close(): Promise<void>;
}

export async function connectBrokerProbe(config: ClientConfig, log: Logger): Promise<BrokerProbe> {
  const probe = await connectClusterProbe({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, log, security: config.kafka.security });
  return { brokerCount: () => probe.brokerCount(), close: () => probe.disconnect() };
}
