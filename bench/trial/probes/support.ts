import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import pino from 'pino';
import { connectCommandTransport, type CommandConsumerSettings } from '../../../src/adapters/kafka/command-transport';
import { connectTrialTransport } from '../transports';
import type { TrialTransport } from '../transports/trial-transport';
import type { TrialClientName } from '../trial-clients';

/**
 * What the trial's probes share (bench/trial/probes/, docs/decisions/kafka-client.md): each probe plays one
 * hard behaviour against a real broker on kafkajs and on each candidate, through the same transport the
 * floors use, and prints what it measured as one JSON line per client.
 */
export const brokers = (): string[] => (process.env.KAFKA_BROKERS ?? '127.0.0.1:19094').split(',');
export const quietLog = pino({ level: process.env.PROBE_LOG_LEVEL ?? 'silent' });
export const probeId = (name: string) => `trial-${name}-${randomUUID().slice(0, 8)}`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const probeSettings = (groupId: string, overrides: Partial<CommandConsumerSettings> = {}): CommandConsumerSettings => ({
  groupId,
  maxBytesPerPartition: 1024 * 1024,
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 1_000,
  metadataMaxAgeMs: 30_000,
  fetchMaxWaitMs: 100,
  ...overrides,
});

/** The transport of `client`: the service's own for kafkajs, the trial's adapter for a candidate. */
export function connectProbeTransport(client: TrialClientName, settings: CommandConsumerSettings, extra: { groupInstanceId?: string; brokers?: string[] } = {}): Promise<TrialTransport> {
  const list = extra.brokers ?? brokers();
  if (client === 'kafkajs') return connectCommandTransport({ brokers: list, clientId: 'trial-probe', log: quietLog }, settings);
  return connectTrialTransport(client, { brokers: list, clientId: `trial-probe-${client}`, log: quietLog, ...(extra.groupInstanceId ? { groupInstanceId: extra.groupInstanceId } : {}) }, settings);
}

/** A kafkajs admin and producer for setting up a probe (creating topics, writing its records). */
export async function setupClient(list = brokers()): Promise<{ kafka: Kafka; admin: Admin; close: () => Promise<void> }> {
  const kafka = new Kafka({ clientId: 'trial-probe-setup', brokers: list, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  return { kafka, admin, close: () => admin.disconnect() };
}

export async function produceNumbered(kafka: Kafka, topic: string, partitions: number, perPartition: number): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  for (let from = 0; from < perPartition; from += 500) {
    const messages = [];
    for (let partition = 0; partition < partitions; partition++) {
      for (let i = from; i < Math.min(perPartition, from + 500); i++) messages.push({ partition, key: `k${i}`, value: `p${partition}-${i}` });
    }
    // a topic created a moment ago may not be hosted yet on the shared broker: retried a few times
    for (let attempt = 1; ; attempt++) {
      try {
        await producer.send({ topic, acks: -1, messages });
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
        await sleep(500 * attempt);
      }
    }
  }
  await producer.disconnect();
}

/** Peak resident memory of this process so far (VmHWM), MiB. */
export const peakRssMiB = (): number => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;

export const clientsFromArgs = (): TrialClientName[] => (process.argv[2] ?? 'kafkajs,platformatic,confluent').split(',') as TrialClientName[];

export const report = (probe: string, client: TrialClientName, measured: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ probe, client, ...measured })}\n`);
