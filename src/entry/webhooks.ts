import { ConfigError } from '../config/env';
import { loadWebhookConfig } from '../webhooks/config';
import { startWebhookDispatcher, type RunningDispatcher } from '../app/webhooks';
import { createLogger } from '../observability/logger';

/** `npm run webhooks`: the webhook dispatcher, settings from the environment (docs/webhooks.md). */
async function main(): Promise<void> {
  let config;
  try {
    config = loadWebhookConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel, name: config.serviceName });
  const running: RunningDispatcher = await startWebhookDispatcher(config, log);
  log.info({ partners: running.dispatcher.partners, opsPort: running.opsPort }, 'webhook dispatcher started');
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'shutting down: deliveries in progress are abandoned uncommitted and resumed by the next start');
    running.stop().then(
      () => process.exit(0),
      (error) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`webhook dispatcher failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
