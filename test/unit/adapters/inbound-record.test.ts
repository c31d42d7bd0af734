import { headersOf, inbound } from '../../../src/adapters/kafka/inbound-record';

const entries = (...pairs: [string, string][]): [Buffer, Buffer][] => pairs.map(([name, value]) => [Buffer.from(name), Buffer.from(value)]);

describe('a consumed record in the transport vocabulary', () => {
  it('keeps every value of a repeated header, in order, and a single one as it is', () => {
    const headers = headersOf({ headerEntries: entries(['a', '1'], ['b', '2'], ['a', '3'], ['a', '4']) })!;
    expect(Object.keys(headers)).toEqual(['a', 'b']);
    expect((headers.a as Buffer[]).map(String)).toEqual(['1', '3', '4']);
    expect(String(headers.b)).toBe('2');
  });

  it('gathers 150,000 values of one name into one array (each value appended, not the array copied per value)', () => {
    const many = Array.from({ length: 150_000 }, (_, i): [Buffer, Buffer] => [Buffer.from('x'), Buffer.from(String(i))]);
    const values = headersOf({ headerEntries: many })!.x as Buffer[];
    expect(values).toHaveLength(150_000);
    expect(String(values[149_999])).toBe('149999');
  });

  it('takes a header named __proto__ as a header, not as the object’s prototype', () => {
    const headers = headersOf({ headerEntries: entries(['__proto__', 'p']) })!;
    expect(String(headers['__proto__'])).toBe('p');
    expect(Object.keys(headers)).toEqual(['__proto__']);
  });

  it('has no headers for a record without any, offsets and timestamps as text, absent key and value as null', () => {
    expect(inbound({ key: undefined as unknown as Buffer, value: undefined as unknown as Buffer, headerEntries: [], offset: 12n, timestamp: 1_700_000_000_000n })).toEqual({
      key: null,
      value: null,
      headers: undefined,
      offset: '12',
      timestamp: '1700000000000',
    });
  });
});
