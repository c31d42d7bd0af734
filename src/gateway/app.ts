import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import secureJson from 'secure-json-parse';
import type { Logger } from 'pino';
import type { RedisClient } from '../adapters/redis/client';
import type { ReadinessReport } from '../observability/readiness';
import { contextOfHttpHeaders, runInContext } from '../shared/tracing';
import { OPERATIONS, operationRecordName } from '../client/operations';
import type { CallerResolver, GatewayCaller } from './callers';
import type { ContractSchemas } from './contract-schemas';
import { GatewayError, httpErrorOf } from './errors';
import { errorResponses, OPENAPI_OPTIONS } from './openapi';
import type { RequesterPool } from './partner-clients';
import { ROUTES, type GatewayRoute } from './routes';
import { validatorCompiler } from './validation';

export interface GatewayDeps {
  schemas: ContractSchemas;
  resolveCaller: CallerResolver;
  requesters: RequesterPool;
  bodyLimitBytes: number;
  /** With `shared`, the count lives in Redis under `shared.keyPrefix`: every instance with the same limit counts together. */
  rateLimit: { max: number; windowMs: number; shared?: { redis: RedisClient; keyPrefix: string } };
  /** GET /readyz: 200 when every check passes, else 503 naming the failed ones. Absent: the route answers 404. */
  readiness?: () => Promise<ReadinessReport>;
  log?: Logger;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: GatewayCaller;
  }
  interface FastifyContextConfig {
    operation?: string;
  }
}

const HEADERS = {
  type: 'object',
  properties: {
    'X-Correlation-Id': {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Names the request (any text up to 128 characters); generated when absent, echoed in the response. Reuse it to retry.',
    },
    wholesaleCustomerId: { type: 'string', description: "The node of the customer hierarchy acted for (default: the token's own); 1 to 12 characters on balance operations." },
  },
};

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

const recordNameOf = (request: FastifyRequest): string | null => {
  const operation = request.routeOptions.config?.operation;
  return operation !== undefined && operation in OPERATIONS ? operationRecordName(operation as keyof typeof OPERATIONS) : null;
};

/** Every row of the route table: the same handler, the schemas of its command and reply. */
async function operationRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  app.addHook('onRequest', async (request) => {
    request.caller = await deps.resolveCaller(request.headers.authorization, header(request, 'wholesalecustomerid'));
  });
  if (deps.rateLimit.max > 0) {
    await app.register(rateLimit, {
      max: deps.rateLimit.max,
      timeWindow: deps.rateLimit.windowMs,
      hook: 'onRequest',
      keyGenerator: (request) => request.caller?.partnerId ?? '-',
      ...(deps.rateLimit.shared
        ? {
            redis: deps.rateLimit.shared.redis,
            nameSpace: `${deps.rateLimit.shared.keyPrefix}gateway-rate:${deps.rateLimit.max}/${deps.rateLimit.windowMs}:`,
            // Redis away: the service's own per-partner rate (in Redis too) is the limit then
            skipOnError: true,
          }
        : {}),
      errorResponseBuilder: (_request, context) =>
        new GatewayError(
          'RATE_LIMITED',
          `The partner's request rate on the gateway is exhausted (${context.max} per ${deps.rateLimit.windowMs} ms); retry after ${context.after}; nothing was sent`,
        ),
    });
  }
  for (const route of ROUTES) app.route(routeOf(route, deps));
}

function routeOf(route: GatewayRoute, deps: GatewayDeps) {
  const input = route.input === 'body' ? 'body' : 'querystring';
  return {
    method: route.method,
    url: route.path,
    config: { operation: route.operation },
    schema: {
      operationId: route.operation,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      headers: HEADERS,
      [input]: deps.schemas.command[route.operation],
      response: {
        200: { ...deps.schemas.reply[route.operation], description: `Success. ${(deps.schemas.reply[route.operation].description as string | undefined) ?? ''}` },
        ...errorResponses(route.input === 'body'),
      },
    },
    handler: async (request: FastifyRequest) => {
      const requester = await deps.requesters.forPartner(request.caller!.partnerId);
      const input = (route.input === 'body' ? request.body : request.query) as never;
      // the command's span continues the caller's trace (its traceparent header), when tracing is on
      return runInContext(contextOfHttpHeaders(request.headers), () =>
        requester.call(route.operation, input, { correlationId: request.id, wholesaleCustomerId: header(request, 'wholesalecustomerid'), token: request.caller!.token }),
      );
    },
  };
}

/**
 * The gateway's HTTP app: the operations of ROUTES, the OpenAPI document (GET /openapi.json) and its
 * interactive reference (/docs), GET /healthz, GET /readyz. Stateless: what a request needs is in the request (its
 * token, its X-Correlation-Id) and in Kafka.
 */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it sets Fastify's logger type parameter, so the instance is a plain FastifyInstance
    ...(deps.log ? { loggerInstance: deps.log as FastifyBaseLogger } : {}),
    bodyLimit: deps.bodyLimitBytes,
    requestIdHeader: 'x-correlation-id',
    genReqId: () => randomUUID(),
    // one line per request at 500/s is noise: failures are logged by the error handler
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setValidatorCompiler(validatorCompiler);
  // JSON only: fastify's built-in text/plain parser would hand the route a string, refused 400 "must be object" instead of 415
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(new GatewayError('BAD_REQUEST', 'The body is not valid JSON; nothing was sent', [{ path: '', reason: (error as Error).message }]), undefined);
    }
  });
  app.addSchema({ $id: 'ErrorReply', ...deps.schemas.error });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-correlation-id', request.id);
  });
  app.setErrorHandler((error, request, reply) => {
    const { statusCode, body } = httpErrorOf(error, recordNameOf(request));
    if (statusCode >= 500)
      request.log.warn({ correlationId: request.id, status: statusCode, code: body.error.code, err: statusCode === 504 ? undefined : error }, 'request not answered by the service');
    return reply.code(statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ status: 'NOT_FOUND', operation: null, error: { code: 'NOT_FOUND', message: `No such route: ${request.method} ${request.url.split('?')[0]}; see /openapi.json`, problems: [] } }),
  );
  await app.register(swagger, OPENAPI_OPTIONS);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  if (deps.readiness) {
    const readiness = deps.readiness;
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const report = await readiness();
      return reply.code(report.ready ? 200 : 503).send(report);
    });
  }
  await app.register(operationRoutes, deps);
  return app;
}
