import { forHttp, inlineNamedTypes } from '../../../src/gateway/contract-schemas';

describe('the Avro schemas as JSON Schema for HTTP', () => {
  it("writes Avro's optional fields as a type list and drops the converter's bookkeeping", () => {
    const converted = { type: 'object', 'x-parser-schema-id': 'X', properties: { gpsi: { oneOf: [{ type: 'string' }, { type: 'null' }], default: null, description: 'd' } } };
    expect(forHttp(converted)).toEqual({ type: 'object', properties: { gpsi: { type: ['string', 'null'], default: null, description: 'd' } } });
  });

  it('keeps a union of two non-null types as oneOf', () => {
    expect(forHttp({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({ oneOf: [{ type: 'string' }, { type: 'integer' }] });
  });

  it('inlines a reference to a named type defined earlier in the schema', () => {
    const address = { type: 'record', name: 'Address', fields: [{ name: 'city', type: 'string' }] };
    const avro = {
      type: 'record',
      name: 'R',
      namespace: 'n',
      fields: [
        { name: 'home', type: address },
        { name: 'work', type: ['null', 'Address'] },
      ],
    };
    const inlined = inlineNamedTypes(avro) as { fields: { type: unknown }[] };
    expect(inlined.fields[1].type).toEqual(['null', address]);
  });
});
