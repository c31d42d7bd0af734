import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { SchemaMismatchError } from '../../src/contract/codec';
import { loadSchemas } from '../../src/adapters/registry/schemas';
import { testConfig } from '../support/harness';

/**
 * Instances of one deployment start together (a rollout, two workers of the benchmark): they register the
 * same new subjects at the same moment. Each checks the subject's compatibility rule, finds none, registers
 * and creates the rule — and Apicurio refuses the later of two simultaneous rule creations with 409 ("A rule
 * named 'COMPATIBILITY' already exists"; seen in about a third of such races here). Every instance must
 * start anyway, with the same schema ids.
 */
describe('schema registration by instances starting together', () => {
  it('every instance registers the same new subject at the same moment and gets the same id', async () => {
    const config = testConfig();
    const record = 'wholesale.balance.v1.QueryBalances';
    const schema = loadSchemas().get(record)!;
    for (let round = 0; round < 10; round++) {
      const topic = `race.${randomUUID().slice(0, 8)}`;
      const codecs = Array.from({ length: 4 }, () => new AvroCodec(config.schemaRegistryUrl));
      const ids = await Promise.all(codecs.map((codec) => codec.register(topic, schema, record)));
      expect(new Set(ids).size).toBe(1);
    }
  });
});

/**
 * The codec writes the wire format itself once it knows an id's schema (no await on the registry client,
 * one buffer): the same bytes as the registry client's, and the same refusal of an invalid value.
 */
describe('encoding with a known schema', () => {
  it("writes the registry client's bytes on the first call and after, and refuses an invalid value naming its paths both times", async () => {
    const config = testConfig();
    const record = 'wholesale.balance.v1.QueryBalances';
    const topic = `encode.${randomUUID().slice(0, 8)}`;
    const codec = new AvroCodec(config.schemaRegistryUrl);
    const id = await codec.register(topic, loadSchemas().get(record)!, record);
    const reference = new SchemaRegistry({ host: config.schemaRegistryUrl });
    const value = { gpsi: '4915112345678' };
    const expected = await reference.encode(id, value);
    expect(await codec.encode(topic, record, value)).toEqual(expected); // the registry client's own path
    expect(await codec.encode(topic, record, value)).toEqual(expected); // the codec's
    expect((await codec.decode(await codec.encode(topic, record, value))).value).toEqual(value);
    for (let call = 0; call < 2; call++) {
      const refused = await codec.encode(topic, record, { gpsi: 42 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SchemaMismatchError);
      expect((refused as SchemaMismatchError).paths).toEqual([['gpsi']]);
    }
  });
});
