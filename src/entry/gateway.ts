import './require-supported-runtime';
import { loadGatewayConfig } from '../gateway/config';
import { startGateway } from '../gateway/start';
import { createLogger } from '../observability/logger';
import { runProgram } from './run-program';

/** The HTTP gateway (npm run gateway): configuration from the environment only; docs/http.md, docs/gateway.md. */
runProgram('gateway', loadGatewayConfig, async (config) => {
  const log = createLogger({ level: config.logLevel, name: 'wholesale-gateway' });
  const gateway = await startGateway(config, log);
  log.info({ port: gateway.port, host: config.http.host }, 'gateway started');
  return { log, stop: () => gateway.close(), stoppingMessage: 'gateway stopping: answering the requests in flight' };
});
