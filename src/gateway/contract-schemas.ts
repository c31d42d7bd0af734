import { avroToJsonSchema } from '@asyncapi/avro-schema-parser';
import { loadSchemas } from '../adapters/registry/schemas';
import { OPERATIONS, type OperationName } from '../client/operations';
import { ERROR_REPLY } from '../contract/topics';

/** A JSON Schema (draft 2020-12 subset, as OpenAPI 3.1 uses it). */
export type JsonSchema = { [keyword: string]: unknown };

/** The JSON Schemas of the HTTP API, made from the Avro records of schemas/: one command and reply per operation, and the error body. */
export interface ContractSchemas {
  command: Record<OperationName, JsonSchema>;
  reply: Record<OperationName, JsonSchema>;
  error: JsonSchema;
}

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The converter's output as plain JSON Schema for HTTP: its parser bookkeeping (`x-parser-schema-id`)
 * dropped, and Avro's optional fields (`oneOf: [T, null]`) written `type: [T, "null"]` — what OpenAPI 3.1
 * readers expect, and what a validator coercing query strings reads without turning null into "".
 */
export function forHttp(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forHttp);
  if (!isObject(schema)) return schema;
  const { 'x-parser-schema-id': _id, oneOf, ...rest } = schema;
  const out: JsonSchema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, forHttp(value)]));
  if (!Array.isArray(oneOf)) return out;
  const branches = oneOf.map(forHttp) as JsonSchema[];
  const nonNull = branches.filter((branch) => branch.type !== 'null');
  if (branches.length === 2 && nonNull.length === 1 && typeof nonNull[0].type === 'string') {
    return { ...nonNull[0], ...out, type: [nonNull[0].type, 'null'] };
  }
  return { ...out, oneOf: branches };
}

/**
 * The Avro schema with every reference to a named type it defined earlier (`"type": ["null", "Address"]`)
 * replaced by that definition: the converter writes such references as `{}`, which says nothing.
 */
export function inlineNamedTypes(avro: unknown, defined = new Map<string, unknown>()): unknown {
  if (typeof avro === 'string') return defined.get(avro) ?? avro;
  if (Array.isArray(avro)) return avro.map((item) => inlineNamedTypes(item, defined));
  if (!isObject(avro)) return avro;
  const out: JsonSchema = { ...avro };
  if ('type' in avro) out.type = inlineNamedTypes(avro.type, defined);
  if ('items' in avro) out.items = inlineNamedTypes(avro.items, defined);
  if (Array.isArray(avro.fields)) out.fields = (avro.fields as JsonSchema[]).map((field) => ({ ...field, type: inlineNamedTypes(field.type, defined) }));
  if (typeof avro.name === 'string' && ['record', 'enum', 'fixed'].includes(avro.type as string)) {
    defined.set(avro.name, out);
    if (typeof avro.namespace === 'string') defined.set(`${avro.namespace}.${avro.name}`, out);
  }
  return out;
}

async function jsonSchemaOf(avro: object): Promise<JsonSchema> {
  return forHttp(await avroToJsonSchema(inlineNamedTypes(avro) as Parameters<typeof avroToJsonSchema>[0])) as JsonSchema;
}

export async function loadContractSchemas(): Promise<ContractSchemas> {
  const avro = loadSchemas();
  const named = (recordName: string) => {
    const schema = avro.get(recordName);
    if (!schema) throw new Error(`schemas/ has no record ${recordName}`);
    return jsonSchemaOf(schema);
  };
  const operations = Object.keys(OPERATIONS) as OperationName[];
  const command = {} as Record<OperationName, JsonSchema>;
  const reply = {} as Record<OperationName, JsonSchema>;
  for (const operation of operations) {
    command[operation] = await named(OPERATIONS[operation].command);
    reply[operation] = await named(OPERATIONS[operation].reply);
  }
  return { command, reply, error: await named(ERROR_REPLY) };
}
