import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The candidate clients of the Kafka client trial (docs/decisions/kafka-client.md) live in their own prefix,
 * .trial/clients (bench/trial/install.ts puts them there), so that the project's `npm ci` and CI never pay
 * for them: their types are declared here as far as the trial uses them, and they are loaded from there.
 */
export const ROOT = join(__dirname, '..', '..', ...(__dirname.includes(`${join('dist', 'bench')}`) ? ['..'] : []));
export const TRIAL_CLIENTS_DIR = join(ROOT, '.trial', 'clients');

export type TrialClientName = 'kafkajs' | 'platformatic' | 'confluent';
export const TRIAL_CLIENTS: readonly TrialClientName[] = ['kafkajs', 'platformatic', 'confluent'];

const PACKAGES: Record<Exclude<TrialClientName, 'kafkajs'>, string> = {
  platformatic: '@platformatic/kafka',
  confluent: '@confluentinc/kafka-javascript',
};

/** Loads a candidate from the trial prefix (require() of an ES module needs Node ≥ 22.12). */
export function loadCandidate<T>(name: Exclude<TrialClientName, 'kafkajs'>): T {
  if (!existsSync(join(TRIAL_CLIENTS_DIR, 'node_modules', PACKAGES[name]))) {
    throw new Error(`${PACKAGES[name]} is not installed in ${TRIAL_CLIENTS_DIR}: run npm run bench:trial (it installs the candidates first)`);
  }
  return createRequire(join(TRIAL_CLIENTS_DIR, 'package.json'))(PACKAGES[name]) as T;
}
