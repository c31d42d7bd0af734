import { leastBatchBytes, MARKER_BATCH_FLOOR, sizeRefusal } from '../../../src/adapters/kafka/topic-size-limits';
import type { Outbound } from '../../../src/contract/transport';

const message = (valueBytes: number): Outbound => ({ topic: 'replies', key: 'k', value: Buffer.alloc(valueBytes), headers: { 'X-Correlation-Id': 'c-1' } });

describe('what a transaction must not be given', () => {
  it('refuses every message to a topic whose limit cannot hold a transaction marker, whatever its size', () => {
    expect(sizeRefusal(message(1), MARKER_BATCH_FLOOR - 1)).toMatch(/^MESSAGE_TOO_LARGE: topic replies .* too few for a transaction's marker/);
    expect(sizeRefusal(message(1), MARKER_BATCH_FLOOR)).toBeUndefined();
  });

  it('refuses a message whose record alone, with a batch header, is above the limit, and lets the broker judge the rest', () => {
    const m = message(500);
    const least = leastBatchBytes(m);
    // batch header 61, record fields 7, key 1, value 500, one header (2 + 16 + 3)
    expect(least).toBe(61 + 7 + 1 + 500 + 2 + 'X-Correlation-Id'.length + 3);
    expect(sizeRefusal(m, least - 1)).toBe(`MESSAGE_TOO_LARGE: a record of at least ${least} bytes, above topic replies's max.message.bytes ${least - 1}`);
    expect(sizeRefusal(m, least)).toBeUndefined();
  });

  it('refuses nothing when the limit is unknown', () => {
    expect(sizeRefusal(message(10_000_000), undefined)).toBeUndefined();
  });
});
