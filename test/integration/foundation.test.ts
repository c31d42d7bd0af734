import { randomBytes, randomUUID } from 'node:crypto';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { subscriberKeys } from '../../src/adapters/redis/keys';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { openLetter } from '../support/dead-letters';
import { testConnection, TopicReader, type Reply } from '../support/harness';
import { useService } from '../support/service-fixture';

const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';
const ERROR_REPLY = 'wholesale.common.v1.ErrorReply';

const randomGpsi = () => `1${Math.floor(1e10 + Math.random() * 9e10)}`;

describe('foundation: command → worker → reply over the real stack', () => {
  const deadLetters: Reply[] = [];

  const fx = useService({ env: { NON_PORTABLE_RANGES: '1900:8B:PremiumRateNumber', MAX_MESSAGE_BYTES: '4096' }, requester: true });

  beforeAll(async () => {
    fx.track(await TopicReader.start(fx.config, [fx.config.topics.deadLetters], (record) => deadLetters.push(record)));
  });

  const dlqFor = async (offsetOf: (r: Reply) => boolean, timeoutMs = 20000): Promise<Reply> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = deadLetters.find(offsetOf);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('no dead letter arrived');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('answers Eligible for a number we do not know, with an ISO 8601 UTC checkedDate', async () => {
    const reply = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() });
    expect(reply.recordName).toBe('wholesale.portin.v1.CheckPortInEligibilityReply');
    expect(reply.headers[HEADER.status]).toBe('Success');
    expect(reply.value).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible', reasonCode: null });
    expect(reply.value.checkedDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('rejects with 8A NumberAlreadyActive once the number has an active subscription', async () => {
    const gpsi = randomGpsi();
    await fx.service.redis.hset(subscriberKeys(fx.config.redis.keyPrefix, gpsi).subscription, { status: 'ACTIVE', wholesaleCustomerId: 'C1' });
    const reply = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi });
    expect(reply.value).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8A', reasonDesc: 'NumberAlreadyActive' });
  });

  it('rejects a number in a configured non-portable range with that range code', async () => {
    const reply = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: '19001234567' });
    expect(reply.value).toMatchObject({ eligibilityStatus: 'Reject', reasonCode: '8B', reasonDesc: 'PremiumRateNumber' });
  });

  it('answers BAD_REQUEST listing every problem of the headers and the body at once', async () => {
    const reply = await fx.requester.send(
      'portinCommands',
      ELIGIBILITY,
      { gpsi: '12ab' },
      {
        headers: { [HEADER.replyTopic]: fx.config.topics.portinEvents },
      },
    );
    expect(reply.recordName).toBe(ERROR_REPLY);
    expect(reply.headers[HEADER.status]).toBe('BAD_REQUEST');
    expect(reply.value.error.code).toBe('BAD_REQUEST');
    const paths = reply.value.error.problems.map((p: { path: string }) => p.path).sort();
    expect(paths).toEqual(['gpsi', 'gpsi', `headers.${HEADER.replyTopic}`]);
    expect(reply.value.error.problems).toEqual(
      expect.arrayContaining([
        { path: 'gpsi', reason: 'must be at least 11 characters' },
        { path: 'gpsi', reason: 'must match 11 to 15 digits' },
      ]),
    );
  });

  it('accepts a port-in wholesaleCustomerId longer than 12 characters (the spec bounds it on balance operations only)', async () => {
    const reply = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() }, { headers: { [HEADER.wholesaleCustomerId]: 'x'.repeat(40) } });
    expect(reply.headers[HEADER.status]).toBe('Success'); // port-in: no length bound in the spec
  });

  it('dead-letters a value that is not Avro, byte for byte under the seal, and still answers the requester', async () => {
    const correlationId = randomUUID();
    const garbage = Buffer.from('{"gpsi":"19459986891"} this is JSON, not Avro');
    const pending = fx.requester.awaitReply(correlationId);
    await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'k-json', value: garbage, headers: { [HEADER.correlationId]: correlationId } });
    const reply = await pending;
    expect(reply.recordName).toBe(ERROR_REPLY);
    expect(reply.value.error.message).toContain('NOT_AVRO');
    const letter = await dlqFor((r) => r.headers[DLQ_HEADER.correlationId] === correlationId);
    expect(letter.headers[DLQ_HEADER.reason]).toBe('NOT_AVRO');
    expect(letter.rawValue?.includes(garbage)).toBe(false); // sealed: the bytes are back only with the key
    expect(openLetter(fx.config, letter).original?.value?.equals(garbage)).toBe(true);
    expect(letter.key).toBe('k-json');
    expect(letter.headers[DLQ_HEADER.sourceTopic]).toBe(fx.config.topics.portinCommands);
    expect(Number(letter.headers[DLQ_HEADER.sourceOffset])).toBeGreaterThanOrEqual(0);
  });

  it('dead-letters an unknown schema id and an oversized message, and keeps serving', async () => {
    const unknownId = randomUUID();
    const wire = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0]), Buffer.from([0x16])]);
    const pendingUnknown = fx.requester.awaitReply(unknownId);
    await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'k-unknown', value: wire, headers: { [HEADER.correlationId]: unknownId } });
    expect((await pendingUnknown).value.error.message).toContain('UNKNOWN_SCHEMA');
    expect((await dlqFor((r) => r.headers[DLQ_HEADER.correlationId] === unknownId)).headers[DLQ_HEADER.reason]).toBe('UNKNOWN_SCHEMA');

    const bigId = randomUUID();
    const pendingBig = fx.requester.awaitReply(bigId);
    await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'k-big', value: randomBytes(8192), headers: { [HEADER.correlationId]: bigId } });
    expect((await pendingBig).value.error.message).toContain('TOO_LARGE');
    expect((await dlqFor((r) => r.headers[DLQ_HEADER.correlationId] === bigId)).headers[DLQ_HEADER.reason]).toBe('TOO_LARGE');

    const after = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() });
    expect(after.value.eligibilityStatus).toBe('Eligible');
  });

  it('dead-letters a record type that has no handler on this topic', async () => {
    const correlationId = randomUUID();
    const pending = fx.requester.awaitReply(correlationId);
    // A valid Avro record registered for the replies topic, sent to the commands topic.
    const value = await fx.requester.codec.encode(fx.config.topics.portinReplies, ERROR_REPLY, {
      status: 'INTERNAL',
      operation: null,
      error: { code: 'INTERNAL', message: 'x', problems: [] },
    });
    await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'k-wrong', value, headers: { [HEADER.correlationId]: correlationId } });
    expect((await pending).value.error.message).toContain('NO_HANDLER');
  });

  it('runs a redelivered query again (queries are not recorded): same correlation id, a fresh answer', async () => {
    const gpsi = randomGpsi();
    const correlationId = randomUUID();
    const first = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi }, { correlationId });
    await new Promise((r) => setTimeout(r, 20)); // a later check carries a later checkedDate
    const again = await fx.requester.send('portinCommands', ELIGIBILITY, { gpsi }, { correlationId });
    expect(again.headers[HEADER.status]).toBe('Success');
    expect(again.value.eligibilityStatus).toBe(first.value.eligibilityStatus);
    expect(again.value.checkedDate > first.value.checkedDate).toBe(true);
    const keys = await fx.service.redis.keys(`${fx.config.redis.keyPrefix}reply:*`);
    expect(keys).toEqual([]);
  });

  it('serves Spring (16-byte binary kafka_correlationId, kafka_replyTopic) and NestJS (string) requesters', async () => {
    const replyTopic = `spring.replies.${randomUUID().slice(0, 8)}`;
    // created as the service creates topics: kafkajs's waitForLeaders retries LEADER_NOT_AVAILABLE only, and KRaft
    // may answer UNKNOWN_TOPIC_OR_PARTITION for a topic just created (failed CI once)
    await ensureTopicsExist(testConnection(fx.config), [replyTopic], 1, 1);
    const received: Reply[] = [];
    const reader = await TopicReader.start(fx.config, [replyTopic], (r) => received.push(r));
    try {
      const binaryId = randomBytes(16);
      binaryId[0] = 0x01; // not printable: a binary id
      const stringId = `nest-${randomUUID()}`;
      const value = await fx.requester.encode('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() });
      await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'spring', value, headers: { kafka_correlationId: binaryId, kafka_replyTopic: replyTopic } });
      await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'nest', value, headers: { kafka_correlationId: stringId, kafka_replyTopic: replyTopic } });
      const deadline = Date.now() + 30000;
      while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const spring = received.find((r) => Buffer.compare(r.rawHeaders.kafka_correlationId as Buffer, binaryId) === 0);
      const nest = received.find((r) => r.headers.kafka_correlationId === stringId);
      expect(spring?.value.eligibilityStatus).toBe('Eligible');
      expect(nest?.value.eligibilityStatus).toBe('Eligible');
      expect(nest?.headers[HEADER.correlationId]).toBe(stringId);
    } finally {
      await reader.stop();
    }
  });
});
