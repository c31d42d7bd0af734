import fc from 'fast-check';
import { compressSync } from 'snappy';
import { inflateSnappy } from '../../../../src/adapters/kafka/codecs/bounded-snappy';
import { codeOf, expectSameBytes } from './inflation-outcome';
import { XERIAL_HEADER, xerialFramed, xerialSnappy } from '../../../support/xerial-snappy';
import { BEYOND_BOUND, MalformedFraming } from '../../../../src/adapters/kafka/codecs/inflation-errors';
import { declaredSnappyLength, snappyChunksOf } from '../../../../src/adapters/kafka/codecs/snappy-framing';

// Snappy batches as Kafka's producers write them (raw, and xerial-framed as Kafka's Java producer does),
// made with the `snappy` package, inflated within a bound known before inflating.

const raw = (data: Buffer): Buffer => compressSync(data);

describe('snappy framing', () => {
  it('reads the exact length a raw chunk declares', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
        expect(declaredSnappyLength(raw(Buffer.from(data)))).toBe(data.length);
      }),
    );
    expect(declaredSnappyLength(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]))).toBe(0xffffffff);
  });

  it('adds up the lengths of xerial chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 3000 }), { maxLength: 6 }), (parts) => {
        const chunks = parts.map((part) => raw(Buffer.from(part)));
        const framing = snappyChunksOf(xerialFramed(chunks));
        expect(framing.chunks.map((chunk) => chunk.toString('hex'))).toEqual(chunks.map((chunk) => chunk.toString('hex')));
        expect(framing.declaredBytes).toBe(parts.reduce((sum, part) => sum + part.length, 0));
      }),
    );
  });

  it('refuses framings whose sizes cannot be read', () => {
    const chunk = raw(Buffer.from('a record'));
    const malformed = {
      'header cut short': XERIAL_HEADER.subarray(0, 12),
      'chunk length cut short': Buffer.concat([xerialFramed([chunk]), Buffer.from([0, 0])]),
      'chunk beyond the batch': xerialFramed([chunk]).subarray(0, XERIAL_HEADER.length + 4 + chunk.length - 1),
      'empty chunk': xerialFramed([Buffer.alloc(0)]),
      'varint cut short': Buffer.from([0x80, 0x80]),
      'varint longer than 5 bytes': Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
      'varint beyond 32 bits': Buffer.from([0xff, 0xff, 0xff, 0xff, 0x1f]),
      'chunk with a bad varint': xerialFramed([Buffer.from([0x80])]),
    };
    for (const [name, bytes] of Object.entries(malformed)) expect([name, codeOf(() => snappyChunksOf(bytes))]).toEqual([name, MalformedFraming.name]);
  });
});

describe('inflateSnappy', () => {
  const MAX = 10_000;
  const data = Buffer.from(Array.from({ length: MAX + 1 }, (_, i) => i % 251));

  it('inflates raw and xerial batches of exactly the bound as written', () => {
    expectSameBytes(inflateSnappy(raw(data.subarray(0, MAX)), { maxOutputLength: MAX }), data.subarray(0, MAX));
    const halves = [data.subarray(0, 4000), data.subarray(4000, MAX)];
    expectSameBytes(inflateSnappy(xerialFramed(halves.map(raw)), { maxOutputLength: MAX }), data.subarray(0, MAX));
    expectSameBytes(inflateSnappy(xerialFramed([]), { maxOutputLength: MAX }), Buffer.alloc(0));
  });

  it("inflates the Java producer's xerial Snappy of many 32 KiB chunks within a bound of its length, and refuses it one byte under", () => {
    const records = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 241));
    const java = xerialSnappy(records);
    expect(snappyChunksOf(java).chunks.length).toBe(4);
    expectSameBytes(inflateSnappy(java, { maxOutputLength: records.length }), records);
    expect(codeOf(() => inflateSnappy(java, { maxOutputLength: records.length - 1 }))).toBe(BEYOND_BOUND);
  });

  it('refuses a batch one byte beyond the bound, raw or xerial (chunks each within it, together beyond)', () => {
    expect(codeOf(() => inflateSnappy(raw(data), { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
    expect(codeOf(() => inflateSnappy(xerialFramed([raw(data.subarray(0, 5000)), raw(data.subarray(5000))]), { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
  });

  it('refuses a chunk declaring 4 GiB before allocating anything for it', () => {
    const before = process.memoryUsage().arrayBuffers;
    const bomb = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    expect(codeOf(() => inflateSnappy(bomb, { maxOutputLength: MAX }))).toBe(BEYOND_BOUND);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
  });

  it('fails, not beyond the bound, on a chunk that does not produce the length it declares', () => {
    const liar = Buffer.from(raw(Buffer.from('a short record')));
    liar[0] = 100; // declares 100 bytes, holds 14
    expect(codeOf(() => inflateSnappy(liar, { maxOutputLength: MAX }))).not.toMatch(new RegExp(`^(${BEYOND_BOUND}|inflated)$`));
  });

  it('inflates whatever the snappy package compressed, within a bound of its length and not one byte under', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 20_000 }), fc.boolean(), (bytes, framed) => {
        const input = Buffer.from(bytes);
        const compressed = framed ? xerialFramed([raw(input)]) : raw(input);
        expectSameBytes(inflateSnappy(compressed, { maxOutputLength: input.length }), input);
        expect(codeOf(() => inflateSnappy(compressed, { maxOutputLength: input.length - 1 }))).toBe(BEYOND_BOUND);
      }),
      { numRuns: 50 },
    );
  });
});
