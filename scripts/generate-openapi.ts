import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiText } from '../src/gateway/openapi-document';

/** Writes openapi.json, the HTTP gateway's OpenAPI 3.1 document, from schemas/ and the route table (test/unit/gateway/openapi-drift.test.ts fails when it is stale). */
export const OPENAPI_FILE = join(__dirname, '..', 'openapi.json');

void openApiText().then(
  (text) => {
    writeFileSync(OPENAPI_FILE, text);
    process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`openapi.json not written: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
