import { randomBytes } from 'node:crypto';
import {
  cloudEventHeaders,
  deadLetterMessage,
  errorReplyValue,
  replyHeaders,
  replyMessage,
  DEAD_LETTER_BODY_BYTES,
  DEAD_LETTER_HEADER_BYTES,
  type DeadLetterSink,
} from '../../../src/pipeline/outbound';
import { outboundBytes, type Outbound } from '../../../src/contract/transport';
import { DLQ_HEADER } from '../../../src/contract/headers';
import { openDeadLetter, sealContext } from '../../../src/security/dead-letter-seal';
import type { RoutedEnvelope } from '../../../src/pipeline/envelope';

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
    const problems = [
      { path: 'gpsi', reason: 'is required' },
      { path: 'bucketRefId[1]', reason: 'must not be empty' },
    ];
    expect(errorReplyValue('BAD_REQUEST', 'invalid', problems, 'AddBuckets')).toEqual({
      status: 'BAD_REQUEST',
      operation: 'AddBuckets',
      error: { code: 'BAD_REQUEST', message: 'invalid', problems },
    });
    expect(errorReplyValue('NOT_FOUND', '').error.message).toMatch(/No record matches/);
  });

  const key = { id: 'k1', secret: randomBytes(32) };
  const sink: DeadLetterSink = { topic: 'dlq', key };
  const open = (letter: Outbound) =>
    openDeadLetter(
      { ciphertext: letter.value!, nonce: Buffer.from(letter.headers[DLQ_HEADER.nonce] as string, 'base64') },
      letter.headers[DLQ_HEADER.keyId] as string,
      sealContext(letter.headers[DLQ_HEADER.keyId] as string, {
        topic: letter.headers[DLQ_HEADER.sourceTopic] as string,
        partition: letter.headers[DLQ_HEADER.sourcePartition] as string,
        offset: letter.headers[DLQ_HEADER.sourceOffset] as string,
      }),
      new Map([[key.id, key.secret]]),
    );

  it('a dead letter keeps the key in clear, seals value and original headers, and says why, where from and how to open it', () => {
    const value = Buffer.from('pin Pin-7Qx-0417');
    const record = { key: Buffer.from('k'), value, headers: { a: Buffer.from('1'), 'X-Correlation-Id': 'c-9' }, timestamp: '17' };
    const letter = deadLetterMessage(sink, record, { topic: 't', partition: 4, offset: '99' }, { reason: 'NOT_AVRO', detail: 'x'.repeat(5000), diagnostic: 'quoted Pin-7Qx-0417' });
    expect(letter.key).toEqual(Buffer.from('k'));
    expect(Object.keys(letter.headers).every((name) => name.startsWith('x-dlq-'))).toBe(true);
    expect(letter.headers).toMatchObject({
      [DLQ_HEADER.reason]: 'NOT_AVRO',
      [DLQ_HEADER.sourceTopic]: 't',
      [DLQ_HEADER.sourcePartition]: '4',
      [DLQ_HEADER.sourceOffset]: '99',
      [DLQ_HEADER.correlationId]: 'c-9',
      [DLQ_HEADER.cipher]: 'AES-256-GCM',
      [DLQ_HEADER.keyId]: 'k1',
    });
    expect((letter.headers[DLQ_HEADER.detail] as string).length).toBe(1024);
    expect(letter.value!.includes('Pin-7Qx-0417')).toBe(false);
    expect(open(letter)).toEqual({
      value,
      headers: [
        ['a', Buffer.from('1')],
        ['X-Correlation-Id', 'c-9'],
      ],
      diagnostic: 'quoted Pin-7Qx-0417',
    });
  });

  it('without a key (AUTH_MODE=none only) a dead letter carries neither the value nor the original headers', () => {
    const record = { key: Buffer.from('k'), value: Buffer.from('pin Pin-7Qx-0417'), headers: { a: Buffer.from('1') }, timestamp: '17' };
    const letter = deadLetterMessage({ topic: 'dlq' }, record, { topic: 't', partition: 4, offset: '99' }, { reason: 'NOT_AVRO', detail: 'd' });
    expect(letter.value).toBeNull();
    expect(Object.keys(letter.headers).every((name) => name.startsWith('x-dlq-'))).toBe(true);
    expect(letter.headers[DLQ_HEADER.valueDropped]).toBe('16');
  });

  it('a dead letter never carries the bearer token, not even sealed', () => {
    const headers = { Authorization: 'Bearer a.b.c', authorization: Buffer.from('Bearer d.e.f'), 'X-Correlation-Id': 'c' };
    const letter = deadLetterMessage(sink, { key: null, value: null, headers, timestamp: '1' }, { topic: 't', partition: 0, offset: '1' }, { reason: 'NOT_AVRO', detail: 'x' });
    expect(open(letter).headers).toEqual([['X-Correlation-Id', 'c']]);
  });

  it('a dead letter of a huge record stays below the broker limit and says what was cut', () => {
    const headers = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`h${i}`, Buffer.alloc(1000, 1)]));
    const record = { key: Buffer.alloc(40_000, 2), value: Buffer.alloc(1_000_000, 3), headers, timestamp: '1' };
    const letter = deadLetterMessage(sink, record, { topic: 't', partition: 0, offset: '5' }, { reason: 'TOO_LARGE', detail: 'big', diagnostic: 'y'.repeat(100_000) });
    expect(outboundBytes(letter)).toBeLessThan(DEAD_LETTER_BODY_BYTES + DEAD_LETTER_HEADER_BYTES + 8192);
    expect(outboundBytes(letter)).toBeLessThan(1024 * 1024 - 1024);
    const opened = open(letter);
    expect((letter.key as Buffer).length + opened.value!.length).toBe(DEAD_LETTER_BODY_BYTES);
    expect(opened.value!.subarray(0, 10)).toEqual(record.value.subarray(0, 10));
    expect(letter.headers).toMatchObject({ [DLQ_HEADER.keyTruncated]: '40000', [DLQ_HEADER.valueTruncated]: '1000000', [DLQ_HEADER.reason]: 'TOO_LARGE' });
    expect(Number(letter.headers[DLQ_HEADER.headersDropped])).toBe(600 - opened.headers.length);
    expect(Number(letter.headers[DLQ_HEADER.headersDropped])).toBeGreaterThan(0);
  });

  it('many tiny headers cannot inflate the sealed layout past the header budget', () => {
    const headers = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`${i}`, 'v']));
    const letter = deadLetterMessage(sink, { key: null, value: null, headers, timestamp: '1' }, { topic: 't', partition: 0, offset: '5' }, { reason: 'TOO_LARGE', detail: 'd' });
    expect(letter.value!.length).toBeLessThan(DEAD_LETTER_HEADER_BYTES + 8192);
  });

  it('CloudEvents binary mode: ce_* attributes and content-type application/avro', () => {
    expect(cloudEventHeaders({ id: 'e1', source: 'svc', type: 'T', subject: '1555', time: '2026-01-01T00:00:00.000Z', correlationId: 'c' })).toEqual({
      ce_specversion: '1.0',
      ce_id: 'e1',
      ce_source: 'svc',
      ce_type: 'T',
      ce_subject: '1555',
      ce_time: '2026-01-01T00:00:00.000Z',
      'content-type': 'application/avro',
      ce_correlationid: 'c',
    });
  });
});
