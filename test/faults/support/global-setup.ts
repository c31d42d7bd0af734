import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provideStack } from '../../../dev/stack';
import { traceTimersWhenAsked } from '../../support/leftover-handles';
import { stackHolder } from '../../support/stack-holder';

/**
 * The fault suite's own servers: always started here as local processes (Kafka, Apicurio, Redis), never
 * endpoints given in the environment, so no fault test ever touches a shared stack. Tests that stop or kill
 * Kafka or Redis start their own on top (dev/stack); the rest share these. Each test's count line is also
 * appended to FAULTS_REPORT_FILE, which the teardown prints as one summary.
 */
export default async function globalSetup(): Promise<void> {
  traceTimersWhenAsked();
  const began = Date.now();
  const env: Record<string, string | undefined> = { ...process.env, STACK_KIND: 'local' };
  for (const given of ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'REDIS_URL']) delete env[given];
  const stack = await provideStack({ env });
  stackHolder.__STACK__ = stack;
  process.env.KAFKA_BROKERS = stack.kafkaBrokers.join(',');
  process.env.SCHEMA_REGISTRY_URL = stack.schemaRegistryUrl;
  process.env.REDIS_URL = stack.redisUrl;
  process.env.FAULTS_REPORT_FILE = join(mkdtempSync(join(tmpdir(), 'faults-report-')), 'report.txt');
  process.env.FAULTS_STARTED_AT = String(began);
  console.log(`\n[faults] ${stack.describe()} — ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
}
