import { Admin } from '@platformatic/kafka';
import type { PartitionLag } from '../../contract/transport';
import { clientOptions, type KafkaConnection } from './connection';
import { groupLag } from './consumer-lag';

/** What readiness and the lag metric ask the cluster, over one admin client kept open. */
export interface ClusterProbe {
  /** The brokers the cluster's metadata lists. */
  brokerCount(): Promise<number>;
  /** The group's lag on each partition of the topics (see consumer-lag.ts). */
  groupLag(groupId: string, topics: readonly string[]): Promise<PartitionLag[]>;
  disconnect(): Promise<void>;
}

export async function connectClusterProbe(connection: KafkaConnection): Promise<ClusterProbe> {
  // Probes fail fast: the readiness timeout bounds them, the client's own retries would only pile up behind it.
  const admin = new Admin({ ...clientOptions(connection, 'probe'), retries: 1, retryDelay: 100 });
  return {
    brokerCount: async () => (await admin.metadata({ topics: [], forceUpdate: true })).brokers.size,
    groupLag: (groupId, topics) => groupLag(admin, groupId, topics),
    disconnect: () => admin.close(),
  };
}
