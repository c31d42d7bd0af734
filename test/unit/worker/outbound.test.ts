import { cloudEventHeaders, deadLetterMessage, errorReplyValue, outboundBytes, replyHeaders, replyMessage, DEAD_LETTER_BODY_BYTES, DEAD_LETTER_HEADER_BYTES, DLQ_HEADER } from '../../../src/worker/outbound';
import type { RoutedEnvelope } from '../../../src/worker/envelope';

const envelope: RoutedEnvelope = { correlationId: 'c-1', correlationSource: 'header', replyTopic: 'r', sourcePartition: 2, problems: [] };

describe('outbound messages', () => {
  it('reply headers carry the correlation id and the status; kafka_correlationId is echoed as received', () => {
    expect(replyHeaders(envelope, 'Success')).toEqual({ 'X-Correlation-Id': 'c-1', 'X-Status': 'Success' });
    const binary = Buffer.from([1, 2, 3]);
    expect(replyHeaders({ ...envelope, kafkaCorrelationId: binary }, 'CONFLICT').kafka_correlationId).toBe(binary);
  });

  it("a reply goes to the partition the requester asked for, else to the one numbered like its command's", () => {
    expect(replyMessage(envelope, 'Success', Buffer.from('v'))).toMatchObject({ topic: 'r', partition: undefined, preferredPartition: 2, key: 'c-1' });
    expect(replyMessage({ ...envelope, replyPartition: 0 }, 'Success', Buffer.from('v'))).toMatchObject({ partition: 0 });
  });

  it('an error reply value carries the code twice (status and error.code) and every problem', () => {
    const problems = [{ path: 'gpsi', reason: 'is required' }, { path: 'bucketRefId[1]', reason: 'must not be empty' }];
    expect(errorReplyValue('BAD_REQUEST', 'invalid', problems, 'AddBuckets')).toEqual({
      status: 'BAD_REQUEST',
      operation: 'AddBuckets',
      error: { code: 'BAD_REQUEST', message: 'invalid', problems },
    });
    expect(errorReplyValue('NOT_FOUND', '').error.message).toMatch(/No record matches/);
  });

  it('a dead letter keeps key, value and headers and says why and where from', () => {
    const value = Buffer.from([0xde, 0xad]);
    const letter = deadLetterMessage('dlq', { key: Buffer.from('k'), value, headers: { a: Buffer.from('1') }, timestamp: '17' }, { topic: 't', partition: 4, offset: '99' }, 'NOT_AVRO', 'x'.repeat(5000));
    expect(letter.value).toBe(value);
    expect(letter.headers).toMatchObject({ a: Buffer.from('1'), [DLQ_HEADER.reason]: 'NOT_AVRO', [DLQ_HEADER.sourceTopic]: 't', [DLQ_HEADER.sourcePartition]: '4', [DLQ_HEADER.sourceOffset]: '99' });
    expect((letter.headers[DLQ_HEADER.detail] as string).length).toBe(1024);
  });

  it('a dead letter never carries the bearer token', () => {
    const headers = { Authorization: 'Bearer a.b.c', authorization: Buffer.from('Bearer d.e.f'), 'X-Correlation-Id': 'c' };
    const letter = deadLetterMessage('dlq', { key: null, value: null, headers, timestamp: '1' }, { topic: 't', partition: 0, offset: '1' }, 'NOT_AVRO', 'x');
    expect(Object.keys(letter.headers).filter((h) => h.toLowerCase() === 'authorization')).toEqual([]);
    expect(letter.headers['X-Correlation-Id']).toBe('c');
  });

  it('a dead letter of a huge record stays below the broker limit and says what was cut', () => {
    const headers = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`h${i}`, Buffer.alloc(1000, 1)]));
    const record = { key: Buffer.alloc(40_000, 2), value: Buffer.alloc(1_000_000, 3), headers, timestamp: '1' };
    const letter = deadLetterMessage('dlq', record, { topic: 't', partition: 0, offset: '5' }, 'TOO_LARGE', 'big');
    expect(outboundBytes(letter)).toBeLessThan(DEAD_LETTER_BODY_BYTES + DEAD_LETTER_HEADER_BYTES + 4096);
    expect(outboundBytes(letter)).toBeLessThan(1024 * 1024 - 1024);
    expect((letter.key as Buffer).length + letter.value!.length).toBe(DEAD_LETTER_BODY_BYTES);
    expect(letter.value!.subarray(0, 10)).toEqual(record.value.subarray(0, 10));
    expect(letter.headers).toMatchObject({ [DLQ_HEADER.keyTruncated]: '40000', [DLQ_HEADER.valueTruncated]: '1000000', [DLQ_HEADER.reason]: 'TOO_LARGE' });
    expect(Number(letter.headers[DLQ_HEADER.headersDropped])).toBe(600 - Object.keys(letter.headers).filter((h) => /^h\d+$/.test(h)).length);
    expect(Number(letter.headers[DLQ_HEADER.headersDropped])).toBeGreaterThan(0);
  });

  it('CloudEvents binary mode: ce_* attributes and content-type application/avro', () => {
    expect(cloudEventHeaders({ id: 'e1', source: 'svc', type: 'T', subject: '1555', time: '2026-01-01T00:00:00.000Z', correlationId: 'c' })).toEqual({
      ce_specversion: '1.0', ce_id: 'e1', ce_source: 'svc', ce_type: 'T', ce_subject: '1555', ce_time: '2026-01-01T00:00:00.000Z',
      'content-type': 'application/avro', ce_correlationid: 'c',
    });
  });
});
