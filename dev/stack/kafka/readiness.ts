import { brokerListsNode, clusterServesGroups } from '../../../src/adapters/kafka/cluster-readiness';
import { isPortOpen } from '../net/ports';
import { waitUntil } from '../process/wait';
import type { SupervisedProcess } from '../process/supervisor';

export interface NodeReadiness {
  /** The node's own PLAINTEXT address first, then running peers that must list it as well. */
  readonly addresses: readonly string[];
  readonly nodeId: number;
  readonly timeoutMs: number;
  /** More ports that must accept connections (the SASL and TLS listeners). */
  readonly extraPorts?: readonly number[];
}

/**
 * One node is ready: its port accepts connections, the cluster metadata served by it and by every running
 * peer lists it (registered and unfenced), and the offsets topic, when it exists, has a leader for every
 * partition (so after a restart the first consumer finds its group coordinator).
 */
export async function waitForKafkaNode(process: SupervisedProcess, readiness: NodeReadiness): Promise<void> {
  const { addresses, nodeId, timeoutMs, extraPorts = [] } = readiness;
  const own = addresses[0];
  for (const port of [Number(own.split(':')[1]), ...extraPorts]) {
    await waitUntil(async () => ((await isPortOpen(port)) ? true : undefined), { what: `listening on port ${port}`, timeoutMs, process });
  }
  for (const address of addresses) {
    await waitUntil(async () => ((await brokerListsNode(address, nodeId)) ? true : undefined), { what: `listed as broker ${nodeId} by ${address}`, timeoutMs, process, intervalMs: 300 });
  }
}

/**
 * The whole cluster is ready: every node is in the metadata and the offsets topic exists with leaders.
 * Looking up a group's coordinator makes the broker create the offsets topic; without this, the first
 * consumer of a test fails with "The group coordinator is not available".
 */
export async function waitForKafkaCluster(brokers: readonly string[], nodeCount: number, timeoutMs: number): Promise<void> {
  await waitUntil(async () => ((await clusterServesGroups(brokers, nodeCount)) ? true : undefined), { what: `serving ${nodeCount} broker(s) with the offsets topic`, timeoutMs, intervalMs: 300 });
}
