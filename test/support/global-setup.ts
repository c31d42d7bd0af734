// Placeholder until the stack provider lands: requires the endpoints in the environment.
export default async function globalSetup(): Promise<void> {
  for (const name of ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'REDIS_URL']) {
    if (!process.env[name]) throw new Error(`${name} must be set`);
  }
}
