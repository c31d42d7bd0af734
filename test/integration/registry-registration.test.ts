import { randomUUID } from 'node:crypto';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
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
