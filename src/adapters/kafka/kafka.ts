import { Kafka, logLevel, type Admin, type ITopicConfig, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

/** kafkajs with its log lines routed into pino, so one log stream carries everything. */
export function createKafka(options: { brokers: string[]; clientId: string; log: Logger }): Kafka {
  const log = options.log.child({ component: 'kafkajs' });
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
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      log[toPino(entry.level)]({ namespace: entry.namespace, ...extra }, message);
    },
  });
}

/** Creates the topics that do not exist yet; existing topics are left as they are. */
export async function ensureTopics(admin: Admin, topics: string[], partitions: number, replicationFactor: number): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing: ITopicConfig[] = [...new Set(topics)]
    .filter((topic) => !existing.has(topic))
    .map((topic) => ({ topic, numPartitions: partitions, replicationFactor }));
  if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true });
  return missing.map((t) => t.topic);
}
