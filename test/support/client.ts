import { randomUUID } from 'node:crypto';
import { type ServiceConfig } from '../../src/app/config';
import { loadNpSimulatorConfig } from '../../dev/np-simulator/config';
import { loadClientConfig, type ClientConfig } from '../../src/client/config';
import { startNpSimulator, type NpSimulator } from '../../dev/np-simulator/np-simulator';
import { envFor, testLogger } from './harness';

/** Requester settings for the topics of a test's service configuration (brokers and registry from the environment). */
export const clientConfigFor = (config: ServiceConfig, overrides: Record<string, string> = {}): ClientConfig => loadClientConfig({ ...envFor(config), ...overrides });

/** The NP simulator on the test's own NP topics, time-scaled so a port completes within a second or two. */
export async function startTestSimulator(config: ServiceConfig, timeScale = '100000'): Promise<NpSimulator> {
  const simulator = await startNpSimulator(loadNpSimulatorConfig({ ...process.env, ...envFor(config), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: timeScale }), {
    log: testLogger(config),
    fromBeginning: false,
  });
  await simulator.joined;
  return simulator;
}

/** An 11-digit number ending in `suffix`: the last two digits pick the NP simulator's rule (dev/np-simulator/rules.ts). */
export const gpsiEndingIn = (suffix: string): string => `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${suffix}`;

export async function eventually<T>(what: string, probe: () => T | undefined, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
