import type { PartitionLag } from '../../contract/transport';
import { groupLag } from './consumer-lag';
import { createKafka, type KafkaConnection } from './kafka';

/** What readiness and the lag metric ask the cluster, over one admin connection kept open. */
export interface ClusterProbe {
  /** The brokers the cluster's metadata lists. */
  brokerCount(): Promise<number>;
  /** The group's lag on each partition of the topics (see consumer-lag.ts). */
  groupLag(groupId: string, topics: readonly string[]): Promise<PartitionLag[]>;
  disconnect(): Promise<void>;
}

export async function connectClusterProbe(connection: KafkaConnection): Promise<ClusterProbe> {
  // Probes fail fast: the readiness timeout bounds them, kafkajs' own retries would only pile up behind it.
  const admin = createKafka(connection).admin({ retry: { retries: 1, initialRetryTime: 100 } });
  await admin.connect();
  return {
    brokerCount: async () => (await admin.describeCluster()).brokers.length,
    groupLag: (groupId, topics) => groupLag(admin, groupId, topics),
    disconnect: () => admin.disconnect(),
  };
}
