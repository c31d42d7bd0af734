import Ajv, { type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Request validation: every problem is listed (allErrors), nothing is added or removed. A JSON body is
 * taken as it is — a number is not a string, as on Kafka — while query parameters and headers, which are
 * text on the wire, are read as the types their schema names (`limit=5` is the int 5).
 */
const common: Options = { allErrors: true, useDefaults: false, removeAdditional: false, allowUnionTypes: true, formats: { double: true } };
const strictBody = new Ajv({ ...common, coerceTypes: false });
const textParts = new Ajv({ ...common, coerceTypes: true });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => (httpPart === 'body' ? strictBody : textParts).compile(schema);
