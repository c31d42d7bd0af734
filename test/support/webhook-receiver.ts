import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A partner's webhook endpoint: a real HTTPS server (node:https) with a self-signed certificate made by
 * openssl for this run. It records every request and answers as told: 2xx, an error status, or — stopped —
 * nothing at all (connection refused).
 */
export interface TestCertificate {
  key: string;
  cert: string;
  /** The certificate's file: the CA the dispatcher is told to trust (WEBHOOK_CA_FILE). */
  caFile: string;
}

export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), caFile: certFile };
}

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** The status answered. */
  status: number;
  /** When the request had arrived whole, and when it was answered. */
  arrivedAt: number;
  at: number;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The status to answer; a function may hold the answer back. */
  answer: () => number | Promise<number> = () => 204;
  private server?: Server;
  private port = 0;

  constructor(private readonly certificate: TestCertificate) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}/webhooks`;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Starts listening (again on the same port once it had one). */
  async start(): Promise<void> {
    const server = createServer({ key: this.certificate.key, cert: this.certificate.cert }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      const answer = async () => {
        const arrivedAt = Date.now();
        const status = await this.answer();
        const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
        this.received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), status, arrivedAt, at: Date.now() });
        response.writeHead(status).end();
      };
      // a failed answer drops the connection: the sender sees a delivery that failed
      request.on('end', () => void answer().catch(() => response.destroy()));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: the next attempts are refused. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The requests answered 2xx. */
  get accepted(): ReceivedWebhook[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }
}
