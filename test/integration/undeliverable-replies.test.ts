import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { balanceRecord } from '../support/balance-client';
import { replyTopicsOf, TopicReader, type Reply } from '../support/harness';
import { parseSamples, sampleSum } from '../support/prometheus';
import { until } from '../support/until';
import { openLetter, originalHeader } from '../support/dead-letters';
import { useService } from '../support/service-fixture';
import { createTopicsWithLeaders } from '../support/kafkajs-topics';

/**
 * Issue 14, defect 1: a reply Kafka will never take — to a topic that does not exist, to a partition the
 * topic lacks, above the topic's size limit, to an internal topic — used to stall the partition (the consumer restarted forever on
 * "This server does not host this topic-partition") or vanish silently. Now each goes to the dead-letter
 * topic as UNDELIVERABLE with its bytes and intended destination, is counted, and its command is committed;
 * the commands behind it in the same partition are answered as usual.
 */
// Both delivery modes: in a transaction, a message the topic cannot take is refused before it is written
// (a topic whose limit cannot hold the transaction's marker would wedge its transactional id for good:
// src/adapters/kafka/topic-size-limits.ts).
describe.each(['at-least-once', 'exactly-once'])('replies Kafka refuses for good, over the real stack (%s)', (delivery) => {
  let kafka: Kafka;
  const letters: Reply[] = [];
  let twoPartitions: string;
  let tiny: string;
  let small: string;

  const fx = useService({
    env: { KAFKA_DELIVERY: delivery },
    prepare: async (config) => {
      kafka = new Kafka({ clientId: 'undeliverable-test', brokers: config.kafka.brokers, logLevel: logLevel.NOTHING });
      twoPartitions = `${config.topics.balanceReplies}.two`;
      tiny = `${config.topics.balanceReplies}.tiny`;
      small = `${config.topics.balanceReplies}.small`;
      const admin = kafka.admin();
      await admin.connect();
      await createTopicsWithLeaders(admin, [
        { topic: twoPartitions, numPartitions: 2, replicationFactor: 1 },
        // no reply fits in 64 bytes (a record batch's own overhead is 61)
        { topic: tiny, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: '64' }] },
        // holds a transaction's marker (78 bytes), not a reply with its headers
        { topic: small, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: '150' }] },
      ]);
      await admin.disconnect();
    },
    requester: (config) => [...replyTopicsOf(config), twoPartitions],
  });

  beforeAll(async () => {
    fx.track(await TopicReader.start(fx.config, [fx.config.topics.deadLetters], (r) => letters.push(r)));
  });

  it("dead-letters a reply the broker refuses (over the topic's size limit) with its bytes and destination, counts it, commits, and answers the commands behind it", async () => {
    const deadLettersBefore = sampleSum(parseSamples(await fx.service.metrics.registry.metrics()), 'wholesale_dead_letters_total', { reason: 'UNDELIVERABLE' });
    const query = async (headers: Record<string, string | Buffer>) => {
      const correlationId = randomUUID();
      // one key: one partition and one per-key chain, so the good command waits behind the bad ones
      await fx.requester.sendRaw(fx.config.topics.balanceCommands, {
        key: 'same-key',
        value: await fx.requester.encode('balanceCommands', balanceRecord('QueryBalances'), { gpsi: '49151000000001' }),
        headers: { [HEADER.correlationId]: correlationId, [HEADER.wholesaleCustomerId]: 'alpha', ...headers },
      });
      return correlationId;
    };
    const partition7 = Buffer.alloc(4);
    partition7.writeInt32BE(7);
    const unknownTopic = `does.not.exist.${randomUUID()}`;
    // Judged before sending since the partner routing (docs/security.md 2a): refused with a BAD_REQUEST on the
    // default reply topic, nothing dead-lettered. The sender's own checks of these cases are unit-tested.
    const refusedBeforeSending: string[] = [
      await query({ [HEADER.replyTopic]: unknownTopic }),
      await query({ [HEADER.kafkaReplyTopic]: twoPartitions, [HEADER.kafkaReplyPartition]: partition7 }),
      await query({ [HEADER.replyTopic]: '__consumer_offsets' }),
    ];
    // Passes every check (it exists, it may be written) and is refused by the broker itself.
    const bad = [
      { id: await query({ [HEADER.replyTopic]: tiny }), target: tiny, reason: /MESSAGE_TOO_LARGE|RECORD_LIST_TOO_LARGE/ },
      { id: await query({ [HEADER.replyTopic]: small }), target: small, reason: /MESSAGE_TOO_LARGE|RECORD_LIST_TOO_LARGE/ },
    ];
    const good = await query({});
    const reply = await fx.requester.awaitReply(good, 30_000);
    expect(reply.headers[HEADER.status]).toBe('NOT_FOUND');
    // A topic refused: answered on the default reply topic; a partition refused: on the topic asked for, partitioned as usual.
    const answeredOn = [fx.config.topics.balanceReplies, twoPartitions, fx.config.topics.balanceReplies];
    for (const [i, id] of refusedBeforeSending.entries()) {
      const refusal = await fx.requester.awaitReply(id, 30_000);
      expect([refusal.topic, refusal.headers[HEADER.status]]).toEqual([answeredOn[i], 'BAD_REQUEST']);
    }

    const found = await until('the UNDELIVERABLE dead letter', async () => {
      const mine = bad.map(({ id }) => letters.find((l) => l.headers[DLQ_HEADER.correlationId] === id));
      return mine.every(Boolean) ? (mine as Reply[]) : undefined;
    });
    for (const [i, letter] of found.entries()) {
      expect(letter.headers[DLQ_HEADER.reason]).toBe('UNDELIVERABLE');
      expect(letter.headers[DLQ_HEADER.targetTopic]).toBe(bad[i].target);
      expect(letter.headers[DLQ_HEADER.detail]).toMatch(bad[i].reason);
      expect(letter.headers[DLQ_HEADER.sourceTopic]).toBe(fx.config.topics.balanceCommands);
      // the reply itself, sealed like every dead letter, encoded as the requester would have read it
      expect(letter.headers[HEADER.status]).toBeUndefined();
      const original = openLetter(fx.config, letter);
      const decoded = await fx.requester.codec.decode(original.original!.value);
      expect(decoded.recordName).toBe('wholesale.common.v1.ErrorReply');
      expect(decoded.value.status).toBe('NOT_FOUND');
      expect(originalHeader(original, HEADER.status)).toBe('NOT_FOUND');
      expect(originalHeader(original, HEADER.correlationId)).toBe(bad[i].id);
    }
    expect(letters.filter((l) => refusedBeforeSending.includes(l.headers[DLQ_HEADER.correlationId] ?? ''))).toEqual([]);

    const counted = await until('the dead letters counted', async () => {
      const now = sampleSum(parseSamples(await fx.service.metrics.registry.metrics()), 'wholesale_dead_letters_total', { reason: 'UNDELIVERABLE' });
      return now - deadLettersBefore >= bad.length ? now - deadLettersBefore : undefined;
    });
    expect(counted).toBe(bad.length);

    // every command is committed: nothing left for the group to redo
    const admin = kafka.admin();
    await admin.connect();
    try {
      await until('all commands committed', async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: fx.config.groupId, topics: [fx.config.topics.balanceCommands] });
        const ends = await admin.fetchTopicOffsets(fx.config.topics.balanceCommands);
        const behind = ends.reduce((sum, end) => sum + Number(end.high) - Math.max(0, Number(offsets.partitions.find((p) => p.partition === end.partition)?.offset ?? 0)), 0);
        return behind === 0 ? true : undefined;
      });
    } finally {
      await admin.disconnect();
    }
  });
});
