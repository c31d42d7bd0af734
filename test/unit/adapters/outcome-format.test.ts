import fc from 'fast-check';
import { decodeOutcome, encodeOutcome } from '../../../src/adapters/redis/outcome-format';
import { type StoredOutcome } from '../../../src/pipeline/ports';

const bytes = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));
const text = fc.string({ unit: 'binary', maxLength: 80 });
// Not "constructor": toStrictEqual compares objects' .constructor by identity, and a header of that name is one.
const headerName = fc.string({ minLength: 1, maxLength: 30 }).filter((name) => name !== 'constructor');
const message = fc.record(
  {
    topic: fc.string({ minLength: 1, maxLength: 60 }),
    partition: fc.nat({ max: 1000 }),
    key: fc.oneof(fc.constant(null), bytes, text),
    value: fc.oneof(fc.constant(null), bytes),
    headers: fc.dictionary(headerName, fc.oneof(bytes, text), { maxKeys: 8, noNullPrototype: true }),
  },
  { requiredKeys: ['topic', 'key', 'value', 'headers'], noNullPrototype: true },
);
const outcome: fc.Arbitrary<StoredOutcome> = fc.record(
  { fingerprint: fc.string({ maxLength: 64 }), messages: fc.array(message, { maxLength: 5 }), rerun: fc.constant(true) },
  { requiredKeys: ['fingerprint', 'messages'], noNullPrototype: true },
);

describe('stored outcome layout', () => {
  it('gives back every message exactly: texts as texts, bytes as bytes, absent partitions absent', () => {
    fc.assert(fc.property(outcome, (o) => expect(decodeOutcome(encodeOutcome(o))).toStrictEqual(o)));
  });

  it('writes an outcome without the rerun flag in the first binary layout, byte for byte', () => {
    const plain = { fingerprint: 'f', messages: [] };
    expect(encodeOutcome(plain)[0]).toBe(0x01);
    expect(encodeOutcome({ ...plain, rerun: true }).subarray(2)).toEqual(encodeOutcome(plain).subarray(1));
  });

  it('is smaller than the JSON-with-base64 layout it replaces for a typical reply', () => {
    const reply = { topic: 'wholesale.balance.replies.v1', key: 'c1f0a3c2-8d0e-4b8e-9a51-0f6a2c9b7d11', value: Buffer.alloc(600, 7), headers: { 'X-Correlation-Id': 'c1f0a3c2-8d0e-4b8e-9a51-0f6a2c9b7d11', 'X-Status': 'Success' } };
    const json = JSON.stringify({ f: 'f'.repeat(64), m: [{ t: reply.topic, k: `s:${reply.key}`, v: reply.value.toString('base64'), h: { 'X-Correlation-Id': `s:${reply.key}`, 'X-Status': 's:Success' } }] });
    expect(encodeOutcome({ fingerprint: 'f'.repeat(64), messages: [reply] }).length).toBeLessThan(json.length * 0.8);
  });

  it('still reads outcomes stored in the earlier JSON layout', () => {
    const legacy = JSON.stringify({
      f: 'abc',
      m: [{ t: 'replies', k: 's:corr-1', v: Buffer.from([0, 1, 2]).toString('base64'), h: { 'X-Status': 's:Success', kafka_correlationId: `b64:${Buffer.from([9, 9]).toString('base64')}` } }],
    });
    expect(decodeOutcome(Buffer.from(legacy))).toEqual({
      fingerprint: 'abc',
      messages: [{ topic: 'replies', key: 'corr-1', value: Buffer.from([0, 1, 2]), headers: { 'X-Status': 'Success', kafka_correlationId: Buffer.from([9, 9]) } }],
    });
  });

  it('keeps a header named __proto__ as a header', () => {
    const headers = Object.fromEntries([['__proto__', 'x']]) as Record<string, string>;
    const decoded = decodeOutcome(encodeOutcome({ fingerprint: 'f', messages: [{ topic: 't', key: null, value: null, headers }] }));
    expect(Object.getOwnPropertyDescriptor(decoded.messages[0]!.headers, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(decoded.messages[0]!.headers)).toBe(Object.prototype);
  });

  it('refuses truncated or unknown bytes instead of replaying garbage', () => {
    const encoded = encodeOutcome({ fingerprint: 'f', messages: [{ topic: 't', key: 'k', value: Buffer.from('v'), headers: {} }] });
    expect(() => decodeOutcome(encoded.subarray(0, encoded.length - 1))).toThrow(/truncated/);
    expect(() => decodeOutcome(Buffer.concat([encoded, Buffer.from([0])]))).toThrow(/left over/);
    expect(() => decodeOutcome(Buffer.from([0x09]))).toThrow(/unknown format/);
  });
});
