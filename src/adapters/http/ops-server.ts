import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ReadinessReport } from '../../observability/readiness';

/**
 * The HTTP side port for operators: GET /healthz (the process is alive), GET /readyz (200 when every
 * readiness check passes, 503 with the failed checks named otherwise) and GET /metrics (Prometheus text).
 * No business traffic goes through it.
 */
export interface OpsEndpoints {
  /** Liveness: false only when the process can no longer do its work (e.g. the consumer gave up). */
  live(): { ok: boolean; detail?: string };
  readiness(): Promise<ReadinessReport>;
  metrics(): Promise<{ contentType: string; body: string }>;
}

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
};

async function route(request: IncomingMessage, response: ServerResponse, endpoints: OpsEndpoints): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  switch (path) {
    case '/healthz': {
      const live = endpoints.live();
      return json(response, live.ok ? 200 : 503, { status: live.ok ? 'ok' : 'failed', ...(live.detail ? { detail: live.detail } : {}) });
    }
    case '/readyz': {
      const report = await endpoints.readiness();
      return json(response, report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not ready', ...report });
    }
    case '/metrics': {
      const { contentType, body } = await endpoints.metrics();
      response.writeHead(200, { 'content-type': contentType });
      response.end(body);
      return;
    }
    default:
      return json(response, 404, { error: `no such endpoint: ${path}; try /healthz, /readyz or /metrics` });
  }
}

export function startOpsServer(options: { port: number; host: string; endpoints: OpsEndpoints; log: Logger }): Promise<OpsServer> {
  const server = createServer((request, response) => {
    route(request, response, options.endpoints).catch((error) => {
      options.log.error({ err: error, path: request.url }, 'ops endpoint failed');
      if (!response.headersSent) json(response, 500, { error: 'internal error' });
      else response.destroy();
    });
  });
  // Probes must not keep a stopping process alive.
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
