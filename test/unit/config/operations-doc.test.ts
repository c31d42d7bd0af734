import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as serviceConfig from '../../../src/app/config';
import * as clientConfig from '../../../src/client/config';
import * as cliConfig from '../../../src/cli/config';
import * as npSimulatorConfig from '../../../dev/np-simulator/config';
import * as stackConfig from '../../../dev/stack/config';
import * as benchConfig from '../../../bench/config';
import * as tracingConfig from '../../../src/config/tracing-settings';
import * as webhookConfig from '../../../src/webhooks/config';
import * as gatewayConfig from '../../../src/gateway/config';
import { configDocDrift, tableFor, type Loader } from '../../support/config-doc';

/** docs/operations.md lists every variable each program's settings read, with the defaults the code applies. */
const { loadConfig } = serviceConfig;
const { loadClientConfig } = clientConfig;
const { loadAdminConfig, loadDlqAdminConfig, loadWebhookAdminConfig } = cliConfig;
const { loadWebhookConfig } = webhookConfig;
const { loadNpSimulatorConfig } = npSimulatorConfig;
const { loadStackConfig } = stackConfig;
const { loadBenchConfig } = benchConfig;
const { loadTracingSettings } = tracingConfig;
const { loadGatewayConfig } = gatewayConfig;
const doc = (name: string) => readFileSync(join(__dirname, '..', '..', '..', 'docs', name), 'utf8');
const DOC = doc('operations.md');
/** Programs whose settings are documented on a page of their own. */
const DOCS: Record<string, string> = { loadGatewayConfig: doc('gateway.md') };
const endpoints = { KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081' };
// Settings read only when another is set are switched on here, so that they are read too.
const sasl = { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'worker', KAFKA_SASL_PASSWORD: 'pw' };
const required = { ...endpoints, REDIS_URL: 'redis://127.0.0.1:6379', AUTH_JWKS_FILE: 'config/jwks.json', AUTH_ISSUER: 'https://issuer.example', DLQ_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), ...sasl };

const LOADERS: [name: string, load: Loader, base: Record<string, string>][] = [
  ['loadConfig', loadConfig, required],
  ['loadNpSimulatorConfig', loadNpSimulatorConfig, { ...endpoints, ...sasl }],
  ['loadClientConfig', (env) => loadClientConfig({}, env), { ...endpoints, ...sasl }],
  ['loadAdminConfig', (env) => loadAdminConfig({}, env), { KAFKA_BROKERS: endpoints.KAFKA_BROKERS, ...sasl }],
  ['loadDlqAdminConfig', (env) => loadDlqAdminConfig({}, env), { ...endpoints, ...sasl, DLQ_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') }],
  ['loadWebhookConfig', loadWebhookConfig, { ...endpoints, ...sasl, REDIS_URL: required.REDIS_URL }],
  ['loadWebhookAdminConfig', (env) => loadWebhookAdminConfig({}, env), { REDIS_URL: required.REDIS_URL }],
  ['loadStackConfig', loadStackConfig, {}],
  ['loadBenchConfig', loadBenchConfig, {}],
  ['loadTracingSettings', (env) => loadTracingSettings(env), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }],
  ['loadGatewayConfig', loadGatewayConfig, { ...endpoints, ...sasl, REDIS_URL: required.REDIS_URL, AUTH_JWKS_FILE: 'config/jwks.json', AUTH_ISSUER: 'https://issuer.example' }],
];

describe('docs/operations.md (and docs/gateway.md) configuration tables', () => {
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-01-01T00:00:00Z'))); // BALANCE_CLOCK_ORIGIN defaults to now
  afterEach(() => jest.restoreAllMocks());

  it.each(LOADERS)('%s: every variable read is documented, nothing else, with the defaults the code applies', (name, load, base) => {
    const rows = tableFor(DOCS[name] ?? DOC, name);
    expect(rows.length).toBeGreaterThan(0);
    expect(configDocDrift(rows, load, base)).toEqual([]);
  });

  it('has a table for every configuration loader of every program', () => {
    const modules = [serviceConfig, clientConfig, cliConfig, webhookConfig, npSimulatorConfig, stackConfig, benchConfig, gatewayConfig];
    const loaders = [...modules.flatMap((module) => Object.keys(module).filter((name) => /^load\w*Config$/.test(name))), ...Object.keys(tracingConfig).filter((name) => name.startsWith('load'))];
    expect(loaders.sort()).toEqual(LOADERS.map(([name]) => name).sort());
  });

  it('reports an undocumented variable, a stale row, wrong defaults and an optional variable written as required', () => {
    const rows = tableFor(DOC, 'loadConfig')
      .filter((row) => row.name !== 'HTTP_PORT')
      .map((row) => (row.name === 'TOPIC_PARTITIONS' ? { ...row, default: '`6`' } : row.name === 'KAFKA_BROKERS' ? { ...row, default: '`localhost:9092`' } : row.name === 'LOG_LEVEL' ? { ...row, default: '— (required)' } : row))
      .concat({ name: 'RETIRED_SETTING', default: '`1`' });
    expect(configDocDrift(rows, loadConfig, required)).toEqual([
      'HTTP_PORT is read by the code but not documented',
      'RETIRED_SETTING is documented but the code does not read it',
      'KAFKA_BROKERS: the documented default `localhost:9092` is not the one the code applies',
      'TOPIC_PARTITIONS: the documented default `6` is not the one the code applies',
      'LOG_LEVEL is documented as required but the code starts without it',
    ]);
  });
});
