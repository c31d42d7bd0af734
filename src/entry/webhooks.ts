import './require-supported-runtime';
import { loadWebhookConfig } from '../webhooks/config';
import { startWebhookDispatcher } from '../app/webhooks';
import { createLogger } from '../observability/logger';
import { runProgram } from './run-program';

/** `npm run webhooks`: the webhook dispatcher, settings from the environment (docs/webhooks.md). */
runProgram('webhook dispatcher', loadWebhookConfig, async (config) => {
  const log = createLogger({ level: config.logLevel, name: config.serviceName });
  const running = await startWebhookDispatcher(config, log);
  log.info({ partners: running.dispatcher.partners, opsPort: running.opsPort }, 'webhook dispatcher started');
  return { log, stop: () => running.stop(), stoppingMessage: 'shutting down: deliveries in progress are abandoned uncommitted and resumed by the next start' };
});
