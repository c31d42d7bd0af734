import type { SwaggerOptions } from '@fastify/swagger';
import { ERROR_CODES } from '../contract/errors';
import type { JsonSchema } from './contract-schemas';
import { GATEWAY_ERROR_CODES } from './errors';
import { COMMAND_FIELD_RULES, REPLY_FIELD_RULES, withFieldRules } from './field-rules';

/** The parts of the OpenAPI document that are not routes: what the API is, how callers authenticate. */
export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Wholesale port-in and balance API',
      version: 'v1',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }, // SPDX's form for a licence of one's own
      description: [
        'The port-in and subscription balance operations of the wholesale service over HTTP: each request is sent as its command on Kafka and answered with its reply (docs/http.md).',
        'Authenticate with `Authorization: Bearer <JWT>`, the same token a Kafka requester sends. `X-Correlation-Id` (optional, up to 128 characters) names the request; it is generated when absent and echoed in every response.',
        'A retry with the same `X-Correlation-Id` is idempotent: a change is applied once and every retry gets the first outcome (for 24 h), so after a 504 or a lost connection, send the same request again with the same id.',
      ].join('\n\n'),
    },
    // relative: the gateway that serves the document is the server
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Port-in', description: 'Eligibility, create, update, cancel and query of port-in requests (spec 2.3–2.8)' },
      { name: 'Balances', description: 'Buckets, balances and the balance ledger of active subscriptions (spec 2.9, 2.10)' },
    ],
  },
  // The document, not the request validation, carries the service's field rules: the service checks them
  // and answers every problem in its own words (docs/http.md, Errors).
  transform: ({ schema, url }) => ({ url, schema: withServiceRules(schema as RouteSchema) }),
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

type RouteSchema = { body?: JsonSchema; querystring?: JsonSchema; response?: Record<string, JsonSchema> };

/** A route's schemas as documented: its command's and its reply's text fields with what the service accepts of them. */
export function withServiceRules(schema: RouteSchema): RouteSchema {
  const out: RouteSchema = { ...schema };
  if (schema.body) out.body = withFieldRules(schema.body, COMMAND_FIELD_RULES);
  if (schema.querystring) out.querystring = withFieldRules(schema.querystring, COMMAND_FIELD_RULES);
  if (schema.response?.[200]) out.response = { ...schema.response, 200: withFieldRules(schema.response[200], REPLY_FIELD_RULES) };
  return out;
}
