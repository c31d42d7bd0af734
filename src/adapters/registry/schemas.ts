import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every Avro schema of the contract, read from schemas/ (one record per .avsc file), by full name. */
export const SCHEMAS_DIR = join(__dirname, '..', '..', '..', 'schemas');

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  fields: unknown[];
  [extra: string]: unknown;
}

export const fullName = (schema: AvroRecordSchema): string => (schema.namespace ? `${schema.namespace}.${schema.name}` : schema.name);

function listAvsc(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return listAvsc(path);
    return entry.endsWith('.avsc') ? [path] : [];
  });
}

export function loadSchemas(dir = SCHEMAS_DIR): Map<string, AvroRecordSchema> {
  const schemas = new Map<string, AvroRecordSchema>();
  for (const file of listAvsc(dir).sort()) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as AvroRecordSchema;
    if (schema.type !== 'record') throw new Error(`${file}: the top-level schema must be a record`);
    const name = fullName(schema);
    if (schemas.has(name)) throw new Error(`${file}: record ${name} is defined twice`);
    schemas.set(name, schema);
  }
  return schemas;
}
