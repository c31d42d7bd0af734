import { request } from 'node:https';
import { request as plainRequest } from 'node:http';
import { rootCertificates } from 'node:tls';
import type { EndpointPoster, PostResult } from '../../webhooks/ports';

/**
 * POSTs a webhook with node:https: the system's CAs plus `ca` (an operator's or a test's own), a timeout
 * for the whole exchange, no redirects followed (a 3xx is a failure, as Standard Webhooks advises). The
 * response body is read and dropped. Plain http:// only when allowed (development).
 */
export interface PosterOptions {
  timeoutMs: number;
  allowHttp: boolean;
  /** Extra trusted CA certificates (PEM), added to Node's default ones. */
  ca?: string;
  userAgent: string;
}

export function createWebhookPoster(options: PosterOptions): EndpointPoster {
  return {
    post(url, headers, body, signal): Promise<PostResult> {
      const target = new URL(url);
      if (target.protocol === 'http:' && !options.allowHttp) return Promise.resolve({ error: 'http:// endpoints are not allowed (WEBHOOK_ALLOW_HTTP)' });
      const send = target.protocol === 'http:' ? plainRequest : request;
      return new Promise((resolve) => {
        const timeout = AbortSignal.timeout(options.timeoutMs);
        const req = send(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body), 'user-agent': options.userAgent },
            signal: AbortSignal.any([signal, timeout]),
            ...(options.ca && target.protocol === 'https:' ? { ca: [...rootCertificates, options.ca] } : {}),
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve({ status: response.statusCode }));
            response.on('error', (error) => resolve({ error: error.message }));
          },
        );
        req.on('error', (error) => resolve({ error: timeout.aborted ? `no answer within ${options.timeoutMs} ms` : error.message }));
        req.end(body);
      });
    },
  };
}
