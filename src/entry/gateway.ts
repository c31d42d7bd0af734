import { ConfigError } from '../config/env';
import { loadGatewayConfig, type GatewayConfig } from '../gateway/config';
import { startGateway, type RunningGateway } from '../gateway/start';
import { createLogger } from '../observability/logger';

/** The HTTP gateway (npm run gateway): configuration from the environment only; docs/http.md, docs/gateway.md. */
async function main(): Promise<void> {
  let config: GatewayConfig;
  try {
    config = loadGatewayConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel, name: 'wholesale-gateway' });
  const gateway: RunningGateway = await startGateway(config, log);
  log.info({ port: gateway.port, host: config.http.host }, 'gateway started');
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'gateway stopping: answering the requests in flight');
    gateway.close().then(
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
  process.stderr.write(`gateway failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
