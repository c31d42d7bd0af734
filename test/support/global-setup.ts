import { provideStack } from '../../dev/stack';
import { traceTimersWhenAsked } from './leftover-handles';
import { stackHolder } from './stack-holder';

/**
 * One stack per integration run (jest globalSetup): endpoints given in the environment are used as they
 * are, anything missing is started (containers or local processes, see dev/stack). The endpoints go into
 * process.env, which the test workers inherit; the Stack stays on globalThis for the teardown.
 */
export default async function globalSetup(): Promise<void> {
  traceTimersWhenAsked();
  const began = Date.now();
  const stack = await provideStack();
  stackHolder.__STACK__ = stack;
  process.env.KAFKA_BROKERS = stack.kafkaBrokers.join(',');
  process.env.SCHEMA_REGISTRY_URL = stack.schemaRegistryUrl;
  process.env.REDIS_URL = stack.redisUrl;
  console.log(`\n[stack] ${stack.describe()} — ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
}
