import avro from 'avsc';
import { AvroCodec } from '../../../src/adapters/registry/avro-codec';
import { DecodeError } from '../../../src/contract/codec';
import { RetriableError } from '../../../src/contract/errors';

/**
 * Which failures to resolve a writer schema are retried: only the registry not answering. A schema it holds
 * but the decoder cannot use makes the record undecodable (dead letter); retrying it held the partition for
 * good. The registry client is replaced by a stub (no I/O); the errors are the shapes it was seen to throw.
 */
const responseError = (status: number, message: string) => Object.assign(new Error(message), { name: 'ResponseError', status });

function codecWhose(getSchema: () => Promise<unknown>): AvroCodec {
  const codec = new AvroCodec('http://registry.invalid');
  Object.assign(codec as unknown as { registry: object }, { registry: { getSchema } });
  return codec;
}

const record = Buffer.from([0, 0, 0, 4, 0xb5, 2, 0x61]);

describe('AvroCodec: resolving the writer schema of an id', () => {
  it.each([
    ['a name avsc refuses (Java Avro and Apicurio accept it)', () => avro.Type.forSchema({ type: 'record', name: 'Caf\u00e9', fields: [] })],
    ['content that is not a schema', () => JSON.parse('{not json')],
  ])('the registry holds a schema the decoder cannot parse (%s): UNDECODABLE', async (_why, parse) => {
    const codec = codecWhose(async () => parse());
    await expect(codec.decode(record)).rejects.toEqual(expect.objectContaining({ name: 'DecodeError', reason: 'UNDECODABLE' }));
  });

  it('the registry holds a JSON Schema under the id: UNDECODABLE, not a TypeError', async () => {
    const codec = codecWhose(async () => ({ validate: () => true, toBuffer: () => Buffer.alloc(0), fromBuffer: () => ({}) }));
    const failure = await codec.decode(record).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DecodeError);
    expect((failure as DecodeError).reason).toBe('UNDECODABLE');
  });

  it('no schema under the id: UNKNOWN_SCHEMA', async () => {
    const codec = codecWhose(async () => Promise.reject(responseError(404, "No content with ID '1234' was found.")));
    await expect(codec.decode(record)).rejects.toEqual(expect.objectContaining({ reason: 'UNKNOWN_SCHEMA' }));
  });

  it.each([
    ['refused connection', responseError(400, 'Error, status 400: connect ECONNREFUSED 127.0.0.1:1')],
    ['server error', responseError(503, 'Service Unavailable')],
  ])('the registry not answering (%s): retried', async (_why, error) => {
    const codec = codecWhose(async () => Promise.reject(error));
    await expect(codec.decode(record)).rejects.toBeInstanceOf(RetriableError);
  });
});
