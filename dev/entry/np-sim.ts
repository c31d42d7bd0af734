import { loadNpSimulatorConfig } from '../np-simulator/config';
import { ConfigError } from '../../src/config/env';
import { createLogger } from '../../src/observability/logger';
import { loadTracingSettings } from '../../src/config/tracing-settings';
import { startTracingIfExported } from '../../src/observability/start-tracing';
import { startNpSimulator } from '../np-simulator/np-simulator';

/** `npm run np-sim`: the NP application simulator on its own (the dev mode and the tests start it in-process). */
async function main(): Promise<void> {
  let config;
  let tracingSettings;
  try {
    config = loadNpSimulatorConfig();
    tracingSettings = loadTracingSettings(process.env, 'np-simulator');
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const tracing = await startTracingIfExported(tracingSettings);
  const log = createLogger({ level: config.logLevel, name: 'np-simulator' });
  const simulator = await startNpSimulator(config, { log });
  await simulator.joined;
  log.info({ topics: config.topics, timeScale: config.timeScale }, 'NP simulator started');
  const shutdown = () =>
    simulator
      .stop()
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  // shutdown settles both ways into an exit, so nothing is left to handle
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error) => {
  process.stderr.write(`NP simulator failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
