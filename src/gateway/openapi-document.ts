import { buildGateway } from './app';
import { loadContractSchemas } from './contract-schemas';
import { GatewayError } from './errors';

/**
 * The OpenAPI 3.1 document of the gateway, as GET /openapi.json serves it: made by @fastify/swagger from
 * the routes of ROUTES and the schemas of schemas/. Built here without Kafka or keys (no request is served),
 * for `npm run generate:openapi`, which checks it in as openapi.json, and the test that fails on drift.
 */
export async function openApiDocument(): Promise<object> {
  const unused = () => Promise.reject(new GatewayError('UNAVAILABLE', 'no requests are served while the document is made'));
  const app = await buildGateway({ schemas: await loadContractSchemas(), resolveCaller: unused, requesters: { forPartner: unused }, bodyLimitBytes: 1024, rateLimit: { max: 0, windowMs: 1000 } });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}

/** The document as the checked-in file holds it. */
export const openApiText = async (): Promise<string> => `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
