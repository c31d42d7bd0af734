import { cloudEventHeaders, deadLetterMessage, errorReplyValue, replyHeaders, DLQ_HEADER } from '../../../src/worker/outbound';
import type { Envelope } from '../../../src/worker/envelope';

const envelope: Envelope = { correlationId: 'c-1', correlationSource: 'header', replyTopic: 'r', problems: [] };

describe('outbound messages', () => {
  it('reply headers carry the correlation id and the status; kafka_correlationId is echoed as received', () => {
    expect(replyHeaders(envelope, 'Success')).toEqual({ 'X-Correlation-Id': 'c-1', 'X-Status': 'Success' });
    const binary = Buffer.from([1, 2, 3]);
    expect(replyHeaders({ ...envelope, kafkaCorrelationId: binary }, 'CONFLICT').kafka_correlationId).toBe(binary);
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

  it('CloudEvents binary mode: ce_* attributes and content-type application/avro', () => {
    expect(cloudEventHeaders({ id: 'e1', source: 'svc', type: 'T', subject: '1555', time: '2026-01-01T00:00:00.000Z', correlationId: 'c' })).toEqual({
      ce_specversion: '1.0', ce_id: 'e1', ce_source: 'svc', ce_type: 'T', ce_subject: '1555', ce_time: '2026-01-01T00:00:00.000Z',
      'content-type': 'application/avro', ce_correlationid: 'c',
    });
  });
});
