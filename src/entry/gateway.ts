import './require-supported-runtime';
import { loadGatewayConfig } from '../gateway/config';
import { startGateway } from '../gateway/start';
import { createLogger } from '../observability/logger';
import { loadTracingSettings } from '../config/tracing-settings';
import { startTracingIfExported } from '../observability/start-tracing';
import { runProgram } from './run-program';

/** The HTTP gateway (npm run gateway): configuration from the environment only; docs/http.md, docs/gateway.md. */
runProgram(
  'gateway',
  () => ({ config: loadGatewayConfig(), tracingSettings: loadTracingSettings(process.env, 'wholesale-gateway') }),
  async ({ config, tracingSettings }) => {
    // with OTEL_* set, each request's command continues the caller's trace (traceparent) to the worker and back
    const tracing = await startTracingIfExported(tracingSettings);
    const log = createLogger({ level: config.logLevel, name: 'wholesale-gateway' });
    const gateway = await startGateway(config, log);
    log.info({ port: gateway.port, host: config.http.host, instanceId: config.client.instanceId }, 'gateway started');
    return { log, stop: () => gateway.close().then(() => tracing.shutdown()), stoppingMessage: 'gateway stopping: answering the requests in flight' };
  },
);
