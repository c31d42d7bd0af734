import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../../src/app/config';
import { loadGatewayConfig } from '../../src/gateway/config';
import { startGateway } from '../../src/gateway/start';
import { envFor, testLogger } from './harness';
import { WorkerProcess } from './worker-process';

/**
 * The HTTP gateway over a test's service: the same topics, partner prefix, AUTH_* settings and customer
 * hierarchy (envFor), a free port on the loopback. In the test process (startTestGateway) or as the
 * production entry point in a child process (spawnGateway), which a test may SIGKILL.
 */
export const gatewayEnvFor = (config: ServiceConfig, overrides: Record<string, string> = {}): Record<string, string> => ({
  ...envFor(config),
  // several gateways of one test share a host: each its own reply groups unless the test names it
  GATEWAY_INSTANCE_ID: `test-gateway-${randomUUID()}`,
  HTTP_PORT: '0',
  HTTP_HOST: '127.0.0.1',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  ...overrides,
});

export interface TestGateway {
  url: string;
  close(): Promise<void>;
}

export async function startTestGateway(config: ServiceConfig, overrides: Record<string, string> = {}): Promise<TestGateway> {
  const settings = loadGatewayConfig({ ...process.env, ...gatewayEnvFor(config, overrides) });
  const gateway = await startGateway(settings, testLogger(config));
  return { url: `http://127.0.0.1:${gateway.port}`, close: () => gateway.close() };
}

export interface GatewayProcess extends TestGateway {
  process: WorkerProcess;
}

/** src/entry/gateway.ts in a child process of its own; resolves once it listens. */
export async function spawnGateway(config: ServiceConfig, name: string, overrides: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = WorkerProcess.spawn(gatewayEnvFor(config, { LOG_LEVEL: 'info', ...overrides }), name, [], 'gateway.ts');
  await child.waitFor((line) => line.includes('"gateway started"'), 90_000, 'gateway started');
  const started = child
    .output()
    .split('\n')
    .find((line) => line.includes('"gateway started"'))!;
  const { port } = JSON.parse(started) as { port: number };
  return { url: `http://127.0.0.1:${port}`, process: child, close: async () => void (await child.signal('SIGTERM')) };
}

export interface HttpReply {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as it is (for malformed JSON); else `body` as JSON. */
  rawBody?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** One request with fetch (undici), the way a partner's system would send it. */
export async function request(base: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpReply> {
  const url = new URL(path, base);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(url, {
    method,
    headers: {
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...options.headers,
    },
    body: payload,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}
