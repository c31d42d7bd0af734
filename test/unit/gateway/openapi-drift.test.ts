import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument, openApiText } from '../../../src/gateway/openapi-document';
import { ROUTES } from '../../../src/gateway/routes';
import { OPERATIONS } from '../../../src/client/operations';

/** openapi.json is what the gateway serves, made from schemas/ and the route table: `npm run generate:openapi` after a change. */
describe('openapi.json', () => {
  it('is the document made from schemas/ and the route table now (regenerate it with npm run generate:openapi)', async () => {
    const checkedIn = readFileSync(join(__dirname, '..', '..', '..', 'openapi.json'), 'utf8');
    expect(checkedIn).toEqual(await openApiText());
  });

  it('is OpenAPI 3.1 with one operation per operation of the client library, each answering the reply or the error body', async () => {
    const document = (await openApiDocument()) as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations.map((o) => o.operationId).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const operation of operations) {
      expect(operation.responses['200'].content['application/json'].schema.properties.status).toBeDefined();
      for (const status of ['400', '401', '403', '404', '409', '410', '429', '500', '503', '504']) {
        expect(operation.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorReply' });
      }
    }
    expect(ROUTES).toHaveLength(Object.keys(OPERATIONS).length);
  });
});
