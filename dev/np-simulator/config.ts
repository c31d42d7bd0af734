import { EnvReader, readLogLevel, type Env } from '../../src/config/env';
import { readKafkaClient, readTopic, type KafkaClientSettings } from '../../src/config/kafka';

/** The NP simulator (npm run np-sim): the Kafka and registry endpoints, its topics and its clock. */
export interface NpSimulatorConfig {
  kafka: KafkaClientSettings;
  schemaRegistryUrl: string;
  topics: { npRequests: string; npResponses: string };
  groupId: string;
  /** Simulated seconds per real second: 1 plays in real time, 100000 runs a one-day port in under a second. */
  timeScale: number;
  logLevel: string;
}

export function loadNpSimulatorConfig(env: Env = process.env): NpSimulatorConfig {
  const reader = new EnvReader(env);
  return {
    kafka: readKafkaClient(reader, 'NP_SIM_CLIENT_ID', 'np-simulator'),
    schemaRegistryUrl: reader.url('SCHEMA_REGISTRY_URL', ['http:', 'https:']),
    topics: {
      npRequests: readTopic(reader, 'npRequests'),
      npResponses: readTopic(reader, 'npResponses'),
    },
    groupId: reader.string('NP_SIM_GROUP_ID', 'np-simulator'),
    timeScale: reader.integer('NP_SIM_TIME_SCALE', 1, 1, 10_000_000),
    logLevel: readLogLevel(reader, 'info'),
  };
}
