import { readEnvelope, positionalCorrelationId, type EnvelopeRules } from '../../../src/pipeline/envelope';
import { HEADER } from '../../../src/contract/headers';
import { WHOLESALE_CUSTOMER_ID_BALANCE } from '../../../src/domain/validation/spec-fields';

const rules: EnvelopeRules = {
  defaultReplyTopic: 'wholesale.balance.replies.v1',
  partnerReplyRole: 'balanceReplies',
  partnerTopicPrefix: 'wholesale.partner.',
  forbiddenReplyTopics: new Set(['wholesale.balance.events.v1']),
  wholesaleCustomerId: WHOLESALE_CUSTOMER_ID_BALANCE,
};
const position = { topic: 'wholesale.balance.commands.v1', partition: 2, offset: '41' };

describe('readEnvelope', () => {
  it('takes X-Correlation-Id as given, even when it is not a UUID (the spec example is not)', () => {
    const envelope = readEnvelope({ [HEADER.correlationId]: Buffer.from('TQA20210903155950999') }, position, rules);
    expect(envelope).toMatchObject({ correlationId: 'TQA20210903155950999', correlationSource: 'header', requestedReplyTopic: undefined, problems: [] });
  });

  it('derives a stable UUID from the record position when no correlation id is sent', () => {
    const a = readEnvelope({}, position, rules);
    const b = readEnvelope(undefined, position, rules);
    expect(a.correlationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(a.correlationId).toBe(b.correlationId);
    expect(a.correlationSource).toBe('generated');
    expect(positionalCorrelationId({ ...position, offset: '42' })).not.toBe(a.correlationId);
  });

  it('reads a Spring 16-byte binary kafka_correlationId and keeps the bytes to echo back', () => {
    const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const envelope = readEnvelope({ kafka_correlationId: id, kafka_replyTopic: Buffer.from('app.replies') }, position, rules);
    expect(envelope.correlationSource).toBe('kafka-binary');
    expect(envelope.correlationId).toBe('00112233-4455-6677-8899-aabbccddeeff');
    expect(envelope.kafkaCorrelationId?.equals(id)).toBe(true);
    expect(envelope.requestedReplyTopic).toBe('app.replies'); // judged only after authentication (reply-route.ts)
  });

  it('reads a NestJS string kafka_correlationId and a text kafka_replyPartition; Spring sends a 4-byte int', () => {
    const nest = readEnvelope({ kafka_correlationId: 'abc-1', kafka_replyPartition: '3' }, position, rules);
    expect(nest).toMatchObject({ correlationId: 'abc-1', correlationSource: 'kafka-string', requestedReplyPartition: 3 });
    const partition = Buffer.alloc(4);
    partition.writeInt32BE(1);
    expect(readEnvelope({ kafka_replyPartition: partition }, position, rules).requestedReplyPartition).toBe(1);
    expect(readEnvelope({ kafka_replyPartition: 'seven' }, position, rules).requestedReplyPartition).toBeNaN();
  });

  it('lists every header problem: too long correlation id, customer id over 12 (a reply topic is judged after authentication)', () => {
    const envelope = readEnvelope({ [HEADER.correlationId]: 'x'.repeat(129), [HEADER.replyTopic]: 'wholesale.balance.events.v1', [HEADER.wholesaleCustomerId]: '1234567890123' }, position, rules);
    expect(envelope.problems.map((p) => p.path)).toEqual(['headers.X-Correlation-Id', 'headers.wholesaleCustomerId']);
    expect(envelope.wholesaleCustomerId).toBeUndefined();
  });

  it("echoes an X-Correlation-Id over the spec's 128 characters up to 1 KiB (still a problem), so the requester can match its BAD_REQUEST", () => {
    const long = 'x'.repeat(129);
    expect(readEnvelope({ [HEADER.correlationId]: long }, position, rules)).toMatchObject({
      correlationId: long,
      correlationSource: 'header',
      problems: [{ path: 'headers.X-Correlation-Id', reason: 'must be at most 128 characters' }],
    });
    const kib = 'é'.repeat(512); // 1,024 bytes
    expect(readEnvelope({ [HEADER.correlationId]: kib }, position, rules).correlationId).toBe(kib);
  });

  it('answers under the positional id an X-Correlation-Id over 1 KiB, not UTF-8, or with control characters (the problem still listed)', () => {
    for (const insane of [Buffer.from('x'.repeat(1025)), Buffer.concat([Buffer.from('x'.repeat(200)), Buffer.from([0xff])]), Buffer.from(`${'x'.repeat(200)}\n`)]) {
      const envelope = readEnvelope({ [HEADER.correlationId]: insane }, position, rules);
      expect(envelope).toMatchObject({ correlationId: positionalCorrelationId(position), correlationSource: 'generated' });
      expect(envelope.problems.map((p) => p.path)).toEqual(['headers.X-Correlation-Id']);
    }
  });
});
