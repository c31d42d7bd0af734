import './require-supported-runtime';
import { loadConfig } from '../app/config';
import { startService } from '../app/service';
import { createLogger } from '../observability/logger';
import { loadTracingSettings } from '../config/tracing-settings';
import { startTracingIfExported } from '../observability/start-tracing';
import { runProgram } from './run-program';

/** Production entry point: configuration from the environment only, no embedded stack. */
runProgram(
  'worker',
  () => {
    const config = loadConfig();
    return { config, tracingSettings: loadTracingSettings(process.env, config.serviceName) };
  },
  async ({ config, tracingSettings }, fail) => {
    const tracing = await startTracingIfExported(tracingSettings);
    const log = createLogger({ level: config.logLevel, name: config.serviceName });
    // a consumer that stopped for good: leave, so that the orchestrator starts a fresh worker
    const service = await startService(config, log, { onFatal: () => fail('consumer stopped') });
    log.info({ groupId: config.groupId, topics: config.topics }, 'worker started');
    return { log, stop: () => service.stop().then(() => tracing.shutdown()), stoppingMessage: 'shutting down: finishing in-flight commands' };
  },
);
