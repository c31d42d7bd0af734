import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaTransport } from '../support/kafkajs-transport';
import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { runWholesale } from '../support/cli';
import { readEveryRecord, recordParts } from '../support/topic-dump';
import { partnerTopics } from '../../src/contract/partner-topics';
import { createCommand, gpsiEndingIn, PORTIN } from '../support/portin/journey';
import { redisSnapshot } from '../support/redis-snapshot';
import { useService } from '../support/service-fixture';

/**
 * Issue 13, item 4: hostile CreatePortIns carrying a known pwdPin and accountNo — larger than
 * MAX_MESSAGE_BYTES, a corrupted Avro body, a valid record of the wrong type for its topic — are
 * dead-lettered; then every topic of the run (listed with the admin client, each read from the beginning)
 * and every Redis key of the run are searched for the secrets in clear. Only the command topics may hold
 * them (the partner wrote them there). The operator's `wholesale admin dlq decrypt` gets the original
 * bytes back. Before the seal, the DLQ held all three byte for byte and this test failed.
 */
describe('hostile port-ins: secrets stay inside', () => {
  let auth: TestAuth;
  const kafka = () => new Kafka({ clientId: 'dlq-secrets', brokers: fx.config.kafka.brokers, ...kafkaTransport(fx.config.kafka.security), logLevel: logLevel.NOTHING });

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => ({ ...auth.env, MAX_MESSAGE_BYTES: '4096' }), requester: true });

  afterAll(async () => {
    auth?.cleanup();
  });

  /** Every record of every topic of this run — its own topics (the run's suffix) and its partners' (the run's partner prefix) — from the beginning. */
  async function readRunTopics(): Promise<Map<string, Buffer[]>> {
    const suffix = fx.config.topics.deadLetters.slice(fx.config.topics.deadLetters.lastIndexOf('.'));
    const client = kafka();
    const admin = client.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.endsWith(suffix) || t.startsWith(fx.config.partnerTopicPrefix));
    await admin.disconnect();
    const records = await readEveryRecord(client, topics);
    return new Map([...records].map(([topic, messages]) => [topic, messages.flatMap(recordParts)]));
  }

  it('dead-letters an oversized, an undecodable and a wrong-type CreatePortIn with no pwdPin or accountNo in clear on any topic or Redis key', async () => {
    const secret = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
    const hostile = { pwdPin: secret('Pn'), accountNo: secret('ACCT') };
    const legit = { pwdPin: '4821', accountNo: `AC${randomBytes(4).toString('hex')}` };
    const token = await auth.signer.sign('alpha');
    const gpsi = gpsiEndingIn('42');
    const portIn = (secrets: { pwdPin: string; accountNo: string }, extra: Record<string, unknown> = {}) => {
      const base = createCommand(gpsi);
      return { ...base, portInfo: { ...base.portInfo, ...secrets, ...extra } };
    };
    const encoded = await fx.requester.encode('portinCommands', PORTIN('CreatePortIn'), portIn(hostile));
    const sends = {
      // the secrets in a record over MAX_MESSAGE_BYTES (4096)
      tooLarge: { topic: fx.config.topics.portinCommands, value: await fx.requester.encode('portinCommands', PORTIN('CreatePortIn'), portIn(hostile, { authorizationName: 'x'.repeat(5000) })) },
      // a corrupted body: the record cut short, the secrets still in it
      undecodable: { topic: fx.config.topics.portinCommands, value: encoded.subarray(0, encoded.length - 3) },
      // a valid CreatePortIn on the balance command topic: no handler there
      wrongType: { topic: fx.config.topics.balanceCommands, value: encoded },
    };
    expect(encoded.subarray(0, encoded.length - 3).includes(hostile.pwdPin)).toBe(true);
    const replies: Record<string, string> = {};
    for (const [name, { topic, value }] of Object.entries(sends)) {
      const correlationId = `${name}-${randomUUID()}`;
      const pending = fx.requester.awaitReply(correlationId);
      await fx.requester.sendRaw(topic, {
        key: gpsi,
        value,
        headers: { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${token}`, [HEADER.wholesaleCustomerId]: 'alpha-b1' },
      });
      const reply = await pending;
      expect(reply.headers[HEADER.status]).toBe('BAD_REQUEST');
      replies[name] = correlationId;
    }
    // A legitimate port-in leaves records in Redis and its secrets on the NP request topic (the old provider checks them).
    expect(
      (await fx.requester.send('portinCommands', PORTIN('CreatePortIn'), { ...portIn(legit), gpsi: gpsiEndingIn('43') }, { token, headers: { [HEADER.wholesaleCustomerId]: 'alpha-b1' } })).value
        .status,
    ).toBe('Success');

    const topics = await readRunTopics();
    // The service's topics and the partner's own, where its replies and events went.
    expect([...topics.keys()].sort()).toEqual(expect.arrayContaining([...Object.values(fx.config.topics), ...Object.values(partnerTopics(fx.config.partnerTopicPrefix, 'alpha'))]));
    const holding = (value: string) =>
      [...topics]
        .filter(([, parts]) => parts.some((part) => part.includes(value)))
        .map(([topic]) => topic)
        .sort();
    const commandTopics = [fx.config.topics.portinCommands, fx.config.topics.balanceCommands].sort();
    // The search is not blind: it finds the secrets where they are in clear by design.
    expect(holding(hostile.pwdPin)).toEqual(commandTopics);
    expect(holding(hostile.accountNo)).toEqual(commandTopics);
    expect(holding(legit.accountNo)).toEqual([fx.config.topics.npRequests, fx.config.topics.portinCommands]);
    expect(topics.get(fx.config.topics.deadLetters)!.length).toBeGreaterThanOrEqual(3);

    const redis = await redisSnapshot(fx.service.redis, `${fx.config.redis.keyPrefix}*`);
    expect(Object.keys(redis).length).toBeGreaterThan(0);
    const stored = JSON.stringify(redis);
    expect([hostile.pwdPin, hostile.accountNo].filter((value) => stored.includes(value))).toEqual([]);

    // The operator opens the letters: the original bytes back, byte for byte, and the record decoded.
    const run = await runWholesale(['admin', 'dlq', 'decrypt', '--json', '--count', '100'], {
      KAFKA_BROKERS: fx.config.kafka.brokers.join(','),
      SCHEMA_REGISTRY_URL: fx.config.schemaRegistryUrl,
      TOPIC_DEAD_LETTERS: fx.config.topics.deadLetters,
      DLQ_ENCRYPTION_KEY: fx.config.deadLetters.encryptionKey!.key,
      DLQ_ENCRYPTION_KEY_ID: fx.config.deadLetters.encryptionKey!.id,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const letters = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (const [name, { value }] of Object.entries(sends)) {
      const letter = letters.find((l) => l.correlationId === replies[name]);
      expect(Buffer.from(letter.valueBase64, 'base64').equals(value)).toBe(true);
      expect(letter.headers[HEADER.correlationId]).toBe(replies[name]);
      expect(letter.headers[HEADER.authorization]).toBeUndefined();
    }
    expect(letters.find((l) => l.correlationId === replies.wrongType).decoded).toMatchObject({ recordName: PORTIN('CreatePortIn'), value: { portInfo: hostile } });
    expect(letters.map((l) => l.reason).sort()).toEqual(['NO_HANDLER', 'TOO_LARGE', 'UNDECODABLE']);
    expect(letters.every((l) => l.key === gpsi)).toBe(true);
  });
});
