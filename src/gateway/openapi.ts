import type { SwaggerOptions } from '@fastify/swagger';
import { ERROR_CODES } from '../contract/errors';
import { GATEWAY_ERROR_CODES } from './errors';

/** The parts of the OpenAPI document that are not routes: what the API is, how callers authenticate. */
export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Wholesale port-in and balance API',
      version: 'v1',
      description: [
        'The port-in and subscription balance operations of the wholesale service over HTTP: each request is sent as its command on Kafka and answered with its reply (docs/http.md).',
        'Authenticate with `Authorization: Bearer <JWT>`, the same token a Kafka requester sends. `X-Correlation-Id` (optional, up to 128 characters) names the request; it is generated when absent and echoed in every response.',
        'A retry with the same `X-Correlation-Id` is idempotent: a change is applied once and every retry gets the first outcome (for 24 h), so after a 504 or a lost connection, send the same request again with the same id.',
      ].join('\n\n'),
    },
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Port-in', description: 'Eligibility, create, update, cancel and query of port-in requests (spec 2.3–2.8)' },
      { name: 'Balances', description: 'Buckets, balances and the balance ledger of active subscriptions (spec 2.9, 2.10)' },
    ],
  },
  // Shared schemas (the error body) keep their $id as their name in components.schemas.
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
};

/** The error responses of every route, with what each status means. */
export function errorResponses(hasBody: boolean): Record<number, object> {
  const codes = { ...ERROR_CODES, ...GATEWAY_ERROR_CODES };
  const responses: Record<number, object> = {};
  for (const [code, { httpStatus, description }] of Object.entries(codes)) {
    if (!hasBody && (code === 'PAYLOAD_TOO_LARGE' || code === 'UNSUPPORTED_MEDIA_TYPE')) continue;
    responses[httpStatus] = { description: `${code}: ${description}`, $ref: 'ErrorReply#' };
  }
  return responses;
}
