import { loadConfig } from '../../src/app/config';
import { loadNpSimulatorConfig } from '../np-simulator/config';
import { ConfigError } from '../../src/config/env';
import { startService } from '../../src/app/service';
import { loadGatewayConfig } from '../../src/gateway/config';
import { startGateway } from '../../src/gateway/start';
import { createLogger } from '../../src/observability/logger';
import { startNpSimulator } from '../np-simulator/np-simulator';
import { createDevSigner, devAuthEnv } from '../keys/dev-signer';
import { devDeadLetterEnv } from '../keys/dev-dead-letter-key';
import { provideStack } from '../stack';
import { loadTracingSettings } from '../../src/config/tracing-settings';
import { startTracingIfExported } from '../../src/observability/start-tracing';

/**
 * `npm run dev`: the stack (given endpoints, containers, or local Kafka/Apicurio/Redis processes), then
 * the service and the NP simulator in this process. Prints where everything listens and the exports a
 * second shell needs for the CLI and the demo. Ctrl-C stops it all.
 */
const DEV_DEFAULTS = {
  // A porting day passes in about four seconds, so a port completes while you watch the demo.
  NP_SIM_TIME_SCALE: '20000',
  NON_PORTABLE_RANGES: '1900:8B:PremiumRateNumber',
};

async function main(): Promise<void> {
  const stack = await provideStack();
  // Authentication stays on in dev: a key pair in .dev-keys/ signs the CLI's and the demo's tokens, and a
  // dead-letter key there seals dead letters (npm run dev:env exports it for `wholesale admin dlq decrypt`).
  const signer = await createDevSigner();
  const env = {
    ...DEV_DEFAULTS,
    ...devAuthEnv(signer.keys),
    ...devDeadLetterEnv(),
    ...process.env,
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    REDIS_URL: stack.redisUrl,
  };
  const config = loadConfig(env);
  const tracing = await startTracingIfExported(loadTracingSettings(env, config.serviceName));
  const log = createLogger({ level: config.logLevel, name: config.serviceName });
  const service = await startService(config, log);
  const simulator = await startNpSimulator(loadNpSimulatorConfig(env), { log: log.child({ component: 'np-simulator' }) });
  await service.joined;
  // The HTTP gateway beside it (docs/http.md) on 8090: HTTP_PORT is the service's ops port here.
  const gateway = await startGateway(loadGatewayConfig({ ...env, HTTP_PORT: '8090', HTTP_HOST: '127.0.0.1' }), log.child({ component: 'gateway' }));

  const exports = [`export KAFKA_BROKERS=${env.KAFKA_BROKERS}`, `export SCHEMA_REGISTRY_URL=${env.SCHEMA_REGISTRY_URL}`, `export REDIS_URL=${env.REDIS_URL}`];
  process.stderr.write(
    [
      '',
      `dev mode up — ${stack.describe()}`,
      `  service: consumer group ${config.groupId}; commands on ${config.topics.portinCommands}, ${config.topics.balanceCommands}`,
      `  NP simulator: time scale ${env.NP_SIM_TIME_SCALE}`,
      `  HTTP gateway: http://127.0.0.1:${gateway.port} (API reference at /docs; docs/http.md)`,
      `  authentication: ${config.auth.mode}${config.auth.mode === 'jwt' ? ` (dev key ${signer.keys.jwksFile}; customers ${config.customersFile})` : ''}`,
      '  in another shell:',
      ...exports.map((line) => `    ${line}`),
      '    npm run demo',
      '    eval "$(npm run -s dev:env -- 100000108465)"    # act as brand 100000108465 of config/customers.json',
      '    npx wholesale portin eligibility --gpsi 14155550123',
      '  Ctrl-C stops everything',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await gateway.close();
    await simulator.stop();
    await service.stop();
    await tracing.shutdown();
    await stack.stop();
    process.exit(0);
  };
  const shutdownOnSignal = () =>
    void shutdown().catch((error: unknown) => {
      process.stderr.write(`dev mode failed to stop: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
  process.once('SIGINT', shutdownOnSignal);
  process.once('SIGTERM', shutdownOnSignal);
}

main().catch((error) => {
  process.stderr.write(error instanceof ConfigError ? `configuration error: ${error.message}\n` : `dev mode failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
