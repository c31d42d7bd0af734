import { loadConfig } from '../app/config';
import { ConfigError } from '../config/env';
import { startService, type RunningService } from '../app/service';
import { createLogger } from '../observability/logger';
import { loadTracingSettings } from '../config/tracing';
import { startTracingIfExported } from '../observability/start-tracing';

/** Production entry point: configuration from the environment only, no embedded stack. */
async function main(): Promise<void> {
  let config;
  let tracingSettings;
  try {
    config = loadConfig();
    tracingSettings = loadTracingSettings(process.env, config.serviceName);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const tracing = await startTracingIfExported(tracingSettings);
  const log = createLogger({ level: config.logLevel, name: config.serviceName });
  let service: RunningService | undefined;
  const shutdown = (signal: string, exitCode = 0): void => {
    log.info({ signal }, 'shutting down: finishing in-flight commands');
    (service?.stop() ?? Promise.resolve()).then(() => tracing.shutdown()).then(
      () => process.exit(exitCode),
      (error) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // a consumer kafkajs will not restart: leave, so that the orchestrator starts a fresh worker
  service = await startService(config, log, { onFatal: () => shutdown('consumer stopped', 1) });
  log.info({ groupId: config.groupId, topics: config.topics }, 'worker started');
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
