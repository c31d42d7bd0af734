import fc from 'fast-check';
import { Type } from 'avsc';
import { loadSchemas } from '../../../src/adapters/registry/schemas';
import { avroBoundsProblem } from '../../../src/adapters/registry/avro-bounds';
import { avroString, varint } from '../../support/avro-bytes';

/**
 * The bounds pass run before avsc decodes a body: it must accept every valid encoding of every record of
 * the contract, and refuse lengths and block counts the remaining bytes cannot hold, so that decoding
 * hostile bytes is bounded in time and memory.
 */
const types = [...loadSchemas().values()].map((schema) => Type.forSchema(schema as never));

const updateBalances = types.find((t) => t.name === 'wholesale.balance.v1.UpdateBalances')!;

describe('avroBoundsProblem', () => {
  it('refuses a 16-byte UpdateBalances whose array claims 2^30 items (avsc alone runs out of heap)', () => {
    const bomb = Buffer.concat([avroString('12345678901'), varint(2 ** 30)]);
    expect(bomb.length).toBeLessThan(20);
    expect(avroBoundsProblem(updateBalances, bomb)).toMatch(/block of 1073741824 items/);
  });

  it('refuses a negative block count whose size field is missing, and a string longer than the body', () => {
    expect(avroBoundsProblem(updateBalances, Buffer.concat([avroString('12345678901'), varint(-(2 ** 30))]))).toBeDefined();
    expect(avroBoundsProblem(updateBalances, Buffer.concat([varint(2 ** 35), Buffer.from('123')]))).toMatch(/a string of 34359738368 bytes/);
    expect(avroBoundsProblem(updateBalances, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toMatch(/longer than 10 bytes/);
  });

  const anyType = fc.constantFrom(...types);

  it(`accepts every valid encoding of each of the contract's ${types.length} records`, () => {
    fc.assert(
      fc.property(anyType, (type) => {
        const value = type.random();
        const body = type.toBuffer(value);
        expect(avroBoundsProblem(type, body)).toBeUndefined();
        expect(type.fromBuffer(body)).toEqual(type.fromBuffer(body));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses no truncation of a valid body that avsc decodes', () => {
    fc.assert(
      fc.property(anyType, fc.nat(), (type, cut) => {
        const valid = type.toBuffer(type.random());
        // a prefix of a valid body claims no more than the body did: safe to give avsc unguarded
        const prefix = valid.subarray(0, cut % (valid.length + 1));
        let avscDecodes = true;
        try {
          type.fromBuffer(prefix);
        } catch {
          avscDecodes = false;
        }
        if (avscDecodes) expect(avroBoundsProblem(type, prefix)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on random bytes, and what it lets through avsc decodes or refuses at once', () => {
    fc.assert(
      fc.property(anyType, fc.uint8Array({ maxLength: 96 }), (type, random) => {
        const body = Buffer.from(random);
        const problem = avroBoundsProblem(type, body);
        expect(problem === undefined || typeof problem === 'string').toBe(true);
        if (problem !== undefined) return;
        const began = Date.now();
        try {
          type.fromBuffer(body);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
        expect(Date.now() - began).toBeLessThan(1000);
      }),
      { numRuns: 5000 },
    );
  });
});
