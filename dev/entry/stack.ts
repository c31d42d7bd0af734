import { provideStack } from '../stack';

/**
 * `npm run stack`: starts the stack (see dev/stack: given endpoints, containers or local processes),
 * prints its endpoints as shell exports, and keeps it up until Ctrl-C or SIGTERM.
 */
async function main(): Promise<void> {
  const stack = await provideStack();
  console.error(`[stack] ${stack.describe()}`);
  console.log(`export KAFKA_BROKERS=${stack.kafkaBrokers.join(',')}`);
  console.log(`export SCHEMA_REGISTRY_URL=${stack.schemaRegistryUrl}`);
  console.log(`export REDIS_URL=${stack.redisUrl}`);
  console.error('[stack] up; Ctrl-C stops it');
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const shutdown = (signal: NodeJS.Signals): void => {
    console.error(`[stack] ${signal}: stopping`);
    clearInterval(keepAlive);
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('[stack] stop failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
