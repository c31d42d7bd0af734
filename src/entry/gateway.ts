import type { AddressInfo } from 'node:net';
import { WholesaleClient } from '../client';
import { ConfigError } from '../config/env';
import { buildGateway } from '../gateway/app';
import { callerResolverFor } from '../gateway/callers';
import { loadGatewayConfig, type GatewayConfig } from '../gateway/config';
import { loadContractSchemas } from '../gateway/contract-schemas';
import { PartnerClients } from '../gateway/partner-clients';
import { createLogger } from '../observability/logger';

/** The HTTP gateway (npm run gateway): configuration from the environment only, docs/http.md and docs/gateway.md. */
async function main(): Promise<void> {
  let config: GatewayConfig;
  let resolveCaller;
  try {
    config = loadGatewayConfig();
    resolveCaller = callerResolverFor(config.auth, config.customersFile);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel, name: 'wholesale-gateway' });
  const requesters = new PartnerClients((partnerId) => WholesaleClient.connect({ config: config.client, partnerId, log }));
  const app = await buildGateway({ schemas: await loadContractSchemas(), resolveCaller, requesters, bodyLimitBytes: config.http.bodyLimitBytes, rateLimit: config.rateLimit, log });
  await app.listen({ port: config.http.port, host: config.http.host });
  log.info({ port: (app.server.address() as AddressInfo).port, host: config.http.host }, 'gateway started');
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'gateway stopping: answering the requests in flight');
    // close() stops accepting and waits for the requests in flight; then the partners' clients go
    app.close().then(() => requesters.close()).then(
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
