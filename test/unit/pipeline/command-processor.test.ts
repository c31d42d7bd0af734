import avro, { type Type } from 'avsc';
import pino from 'pino';
import { loadSchemas } from '../../../src/adapters/registry/schemas';
import { DecodeError, SchemaMismatchError, type Codec } from '../../../src/contract/codec';
import { isRedisUnavailable } from '../../../src/adapters/redis/client';
import { CommandProcessor, type ProcessorDeps } from '../../../src/pipeline/command-processor';
import { createHierarchyAuthorizer, createOpenAuthorizer, unlimited, type Admission, type Authenticator, type PartnerAdmission } from '../../../src/security/access';
import { CustomerHierarchy } from '../../../src/security/hierarchy';
import { openAuthenticator } from '../../../src/security/jwt-authenticator';
import { openDeadLetter, sealContext } from '../../../src/security/dead-letter-seal';
import { ServiceError, RetriableError } from '../../../src/contract/errors';
import type { HandlerRegistration, HandlerResult } from '../../../src/contract/handlers';
import type { TopicRole } from '../../../src/contract/topics';
import { WHOLESALE_CUSTOMER_ID_PORTIN } from '../../../src/domain/validation/spec-fields';
import { TopicRefusedError } from '../../../src/contract/transport';
import type { RejectedBudget } from '../../../src/security/rejected-budget';

/** An in-memory codec over the schemas in schemas/: ids are indexes, no registry involved. */
class MemoryCodec implements Codec {
  private readonly types: Type[] = [];
  private readonly byName = new Map<string, number>();
  constructor() {
    for (const [name, schema] of loadSchemas()) {
      this.byName.set(name, this.types.length);
      this.types.push(avro.Type.forSchema(schema as avro.Schema));
    }
  }
  async encode(_topic: string, recordName: string, value: object): Promise<Buffer> {
    const id = this.byName.get(recordName)!;
    const header = Buffer.alloc(5);
    header.writeUInt32BE(id, 1);
    if (!this.types[id].isValid(value)) throw new SchemaMismatchError('invalid value', []); // as the codec does
    return Buffer.concat([header, this.types[id].toBuffer(value)]);
  }
  /** How many values were decoded. */
  decodes = 0;
  async decode(buffer: Buffer | null) {
    this.decodes++;
    if (!buffer || buffer[0] !== 0) throw new DecodeError('NOT_AVRO', 'not avro');
    const id = buffer.readUInt32BE(1);
    const type = this.types[id];
    if (!type) throw new DecodeError('UNKNOWN_SCHEMA', `unknown ${id}`);
    return { schemaId: id, recordName: type.name!, value: type.fromBuffer(buffer.subarray(5)) };
  }
  async recordNameOf(buffer: Buffer | null) {
    return buffer && buffer[0] === 0 ? this.types[buffer.readUInt32BE(1)]?.name : undefined;
  }
  read(buffer: Buffer) {
    return this.types[buffer.readUInt32BE(1)].fromBuffer(buffer.subarray(5));
  }
}

/** What a change's store keeps (outside the pipeline): the fingerprint and result of each command applied. */
type Recorded = Map<string, { fingerprint: string; result: HandlerResult }>;

/**
 * A change's handler over a store that records its outcome with the payload's fingerprint, as the stores'
 * scripts do: the same command id replays the result (REPLAYED), or is a CONFLICT with another payload; a
 * new change under `refuseNew` is refused unapplied.
 */
const recordingOwnOutcome =
  (records: Recorded, handle: HandlerRegistration['handle'], applied: () => void): HandlerRegistration['handle'] =>
  async (command, context) => {
    const kept = records.get(context.commandId);
    if (kept) {
      if (kept.fingerprint !== context.fingerprint) throw new ServiceError('CONFLICT', `X-Correlation-Id ${context.correlationId} was already used for a different ${context.operation} command`);
      return { ...kept.result, replayed: true };
    }
    if (context.refuseNew) throw new ServiceError(context.refuseNew.code, context.refuseNew.message, context.refuseNew.problems);
    applied();
    const result = await handle(command, context);
    records.set(context.commandId, { fingerprint: context.fingerprint, result });
    return result;
  };

/**
 * A quota per partner when set (changes counted at admission, uncounted after); partners in `overRate` are
 * refused their rate. Records the send times asked with and the refunds given.
 */
class MemoryAdmission implements PartnerAdmission {
  readonly quotas = new Map<string, number>();
  readonly counted = new Map<string, number>();
  readonly overRate = new Set<string>();
  readonly sentAt: number[] = [];
  readonly refunds: [string, number][] = [];
  async admit(partnerId: string, isChange: boolean, sentAtMs: number): Promise<Admission> {
    this.sentAt.push(sentAtMs);
    if (this.overRate.has(partnerId)) return { allowed: false, retryAfterMs: 400 };
    if (!isChange) return { allowed: true, retryAfterMs: 0 };
    const held = this.counted.get(partnerId) ?? 0;
    const quota = this.quotas.get(partnerId);
    if (quota !== undefined && held >= quota) return { allowed: true, retryAfterMs: 0, quotaExhausted: { held, quota, windowSeconds: 60 } };
    this.counted.set(partnerId, held + 1);
    return { allowed: true, retryAfterMs: 0 };
  }
  uncount(partnerId: string) {
    this.counted.set(partnerId, (this.counted.get(partnerId) ?? 0) - 1);
  }
  refund(partnerId: string, sentAtMs: number) {
    this.refunds.push([partnerId, sentAtMs]);
  }
}

const topics = Object.fromEntries(
  ['portinCommands', 'portinReplies', 'balanceCommands', 'balanceReplies', 'portinEvents', 'balanceEvents', 'deadLetters', 'npRequests', 'npResponses'].map((r) => [r, `t.${r}`]),
) as Record<TopicRole, string>;

const COMMAND = 'wholesale.portin.v1.CheckPortInEligibility';

function setup(
  handle: HandlerRegistration['handle'],
  access: Partial<Pick<ProcessorDeps, 'authenticator' | 'authorizer' | 'admission' | 'rejectedBudget' | 'isRetriable'>> = {},
  options: Pick<HandlerRegistration, 'readOnly' | 'situation'> = {},
  deps: Partial<ProcessorDeps> = {},
) {
  const codec = new MemoryCodec();
  const records: Recorded = new Map();
  const admission = new MemoryAdmission();
  let calls = 0;
  const registration: HandlerRegistration = {
    domain: 'portin',
    commandRecord: COMMAND,
    replyRecord: 'wholesale.portin.v1.CheckPortInEligibilityReply',
    validate: (c: { gpsi: string }) => (c.gpsi.length < 11 ? [{ path: 'gpsi', reason: 'too short' }] : []),
    ...options,
    handle: options.readOnly
      ? async (command, context) => {
          calls++;
          return handle(command, context);
        }
      : recordingOwnOutcome(records, handle, () => calls++),
  };
  const rules = {
    defaultReplyTopic: topics.portinReplies,
    partnerReplyRole: 'portinReplies' as const,
    partnerTopicPrefix: 'p.',
    forbiddenReplyTopics: new Set<string>(),
    wholesaleCustomerId: WHOLESALE_CUSTOMER_ID_PORTIN,
  };
  const processor = new CommandProcessor({
    codec,
    handlers: new Map([[COMMAND, registration]]),
    topics,
    deadLetters: { topic: topics.deadLetters, key: { id: 'k', secret: Buffer.alloc(32, 1) } },
    envelopeRules: { portin: rules, balance: { ...rules, defaultReplyTopic: topics.balanceReplies, partnerReplyRole: 'balanceReplies' } },
    routing: { topics, partnerTopicPrefix: 'p.', partnerOf: (owner) => ({ P1: 'P1', B1: 'P1', B2: 'P1', P2: 'P2' })[owner], dataSchemaBaseUrl: 'http://registry.test/apis/ccompat/v7' },
    // Two topics exist besides the partners' own: P1's extra reply topic (2 partitions) and a legacy one.
    partitionCount: async (topic) => {
      if (topic === 'p.P1.my.replies' || topic.endsWith('.replies.v1') || topic === 'legacy.replies') return 2;
      throw new TopicRefusedError(topic, 'UNKNOWN_TOPIC_OR_PARTITION');
    },
    rejectedBudget: { take: () => true, spent: () => false },
    maxMessageBytes: 1000,
    maxCommandAgeMs: Number.POSITIVE_INFINITY, // the records here carry timestamp 0
    ...deps,
    serviceName: 'svc',
    clock: () => new Date('2026-11-21T10:00:00Z'),
    log: pino({ level: 'silent' }),
    isRetriable: (e) => e instanceof Error && e.message === 'redis down',
    authenticator: openAuthenticator,
    authorizer: createOpenAuthorizer(undefined),
    admission,
    ...access,
  });
  return { codec, records, admission, processor, calls: () => calls };
}

const position = { topic: 't.portinCommands', partition: 0, offset: '7' };
const success = async () => ({ reply: { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: 'now', reasonCode: null, reasonDesc: null } });

describe('CommandProcessor', () => {
  it('routes by record name, answers on the reply topic keyed by correlation id, and remembers the outcome', async () => {
    const { codec, processor, records } = setup(success);
    const value = await codec.encode('', COMMAND, { gpsi: '14155550123' });
    const result = await processor.process({ key: null, value, headers: { 'X-Correlation-Id': 'c1' }, timestamp: '0' }, position, 'portin');
    expect(result.outcome).toBe('Success');
    expect(result.outbound).toHaveLength(1);
    expect(result.outbound[0]).toMatchObject({ topic: 't.portinReplies', key: 'c1', headers: { 'X-Status': 'Success' } });
    expect(codec.read(result.outbound[0].value!)).toMatchObject({ eligibilityStatus: 'Eligible' });
    expect(records.size).toBe(1);
  });

  it('replays the remembered outcome for a redelivery without calling the handler again', async () => {
    const { codec, processor, calls } = setup(success);
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'c1' }, timestamp: '0' };
    const first = await processor.process(record, position, 'portin');
    const again = await processor.process(record, { ...position, offset: '8' }, 'portin');
    expect(again.outcome).toBe('REPLAYED');
    expect(again.outbound).toEqual(first.outbound);
    expect(calls()).toBe(1);
  });

  it('runs a read-only handler again on a redelivery and answers from the current state; nothing is recorded', async () => {
    let checks = 0;
    const { codec, processor, records, calls } = setup(
      async () => ({ reply: { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: `check ${++checks}`, reasonCode: null, reasonDesc: null } }),
      {},
      { readOnly: true },
    );
    const record = async (gpsi: string) => ({ key: null, value: await codec.encode('', COMMAND, { gpsi }), headers: { 'X-Correlation-Id': 'c1' }, timestamp: '0' });
    const first = await processor.process(await record('14155550123'), position, 'portin');
    const again = await processor.process(await record('14155550123'), { ...position, offset: '8' }, 'portin');
    expect(calls()).toBe(2);
    expect(first.outcome).toBe('Success');
    expect(again.outcome).toBe('Success');
    expect(codec.read(again.outbound[0].value!)).toMatchObject({ checkedDate: 'check 2' });
    expect(records.size).toBe(0);
  });

  it('maps a ServiceError to an ErrorReply with its code and problems; validation problems skip the handler', async () => {
    const { codec, processor, calls } = setup(async () => {
      throw new ServiceError('CONFLICT', 'port in progress');
    });
    const conflict = await processor.process(
      { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'a' }, timestamp: '0' },
      position,
      'portin',
    );
    expect(conflict.outcome).toBe('CONFLICT');
    expect(codec.read(conflict.outbound[0].value!)).toMatchObject({ status: 'CONFLICT', operation: 'CheckPortInEligibility', error: { code: 'CONFLICT', message: 'port in progress' } });
    const bad = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '1' }), headers: { 'X-Correlation-Id': 'b' }, timestamp: '0' }, position, 'portin');
    expect(codec.read(bad.outbound[0].value!)).toMatchObject({ status: 'BAD_REQUEST', error: { problems: [{ path: 'gpsi', reason: 'too short' }] } });
    expect(calls()).toBe(1);
  });

  it.each(['CONFLICT', 'NOT_FOUND', 'BAD_REQUEST'] as const)('a %s refusal from the handler is not remembered: a redelivery is evaluated again (nothing was applied)', async (code) => {
    let refusing = true;
    const { codec, processor, records, calls } = setup(async () => {
      if (refusing) throw new ServiceError(code, 'not now');
      return success();
    });
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'r1' }, timestamp: '0' };
    expect((await processor.process(record, position, 'portin')).outcome).toBe(code);
    expect(records.size).toBe(0);
    refusing = false;
    const retried = await processor.process(record, { ...position, offset: '8' }, 'portin');
    expect([retried.outcome, calls()]).toEqual(['Success', 2]);
  });

  it('a redelivered change runs its handler again, which answers from its own record: the same reply and messages (one carrying secrets too), REPLAYED; another payload under the same id is a CONFLICT', async () => {
    const npRequest = { requestId: 'r', gpsi: 'g', portOrderVersion: 1, portOrderId: null, reasonCode: null, reasonDescription: null, correlationId: null, sentAt: 't' };
    const fingerprints: string[] = [];
    const { codec, processor, records, calls } = setup(async (_command, context) => {
      fingerprints.push(context.fingerprint);
      return { ...(await success()), messages: [{ topic: 'npRequests' as const, recordName: 'np.portin.v1.CancelPortRequest', key: 'g', value: npRequest, secrets: 'inClear' as const }] };
    });
    const record = async (gpsi: string) => ({ key: null, value: await codec.encode('', COMMAND, { gpsi }), headers: { 'X-Correlation-Id': 's1' }, timestamp: '0' });
    const first = await processor.process(await record('14155550123'), position, 'portin');
    expect(first.outbound.map((m) => m.topic)).toEqual(['t.portinReplies', 't.npRequests']);
    const again = await processor.process(await record('14155550123'), { ...position, offset: '8' }, 'portin');
    expect([again.outcome, calls(), records.size]).toEqual(['REPLAYED', 1, 1]);
    expect(again.outbound).toEqual(first.outbound); // byte for byte
    const other = await processor.process(await record('14155550999'), { ...position, offset: '9' }, 'portin');
    expect(other.outcome).toBe('CONFLICT');
    expect(codec.read(other.outbound[0].value!)).toMatchObject({ error: { message: 'X-Correlation-Id s1 was already used for a different CheckPortInEligibility command' } });
    expect(calls()).toBe(1);
    // 128 bits of SHA-256, base64url, given to the handler's store with the command
    expect([...records.values()][0].fingerprint).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(fingerprints).toHaveLength(1);
  });

  it('counts a change once at admission and uncounts what recorded nothing new: a replay, a validation refusal', async () => {
    const { codec, processor, admission } = setup(success);
    const record = async (gpsi: string, id: string) => ({ key: null, value: await codec.encode('', COMMAND, { gpsi }), headers: { 'X-Correlation-Id': id }, timestamp: '0' });
    expect((await processor.process(await record('14155550123', 'a'), position, 'portin')).outcome).toBe('Success');
    expect([...admission.counted.values()]).toEqual([1]);
    expect((await processor.process(await record('14155550123', 'a'), position, 'portin')).outcome).toBe('REPLAYED');
    expect((await processor.process(await record('1', 'b'), position, 'portin')).outcome).toBe('BAD_REQUEST');
    expect([...admission.counted.values()]).toEqual([1]);
  });

  it('answers INTERNAL for an unexpected handler failure and does not remember it', async () => {
    const { codec, processor, records } = setup(async () => {
      throw new TypeError('bug');
    });
    const result = await processor.process(
      { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'a' }, timestamp: '0' },
      position,
      'portin',
    );
    expect(result.outcome).toBe('INTERNAL');
    expect(records.size).toBe(0);
  });

  it('rethrows infrastructure failures as retriable: nothing is answered', async () => {
    const { codec, processor } = setup(async () => {
      throw new Error('redis down');
    });
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: {}, timestamp: '0' };
    await expect(processor.process(record, position, 'portin')).rejects.toBeInstanceOf(RetriableError);
  });

  it.each([
    ['out of memory', "OOM command not allowed when used memory > 'maxmemory'."],
    ['read-only after a failover', "READONLY You can't write against a read only replica."],
  ])('with the rate limiter off, Redis refusing a handler (%s) is retried, not answered INTERNAL', async (_why, message) => {
    const { codec, processor, records } = setup(
      async () => {
        throw Object.assign(new Error(message), { name: 'ReplyError' });
      },
      { admission: unlimited, isRetriable: isRedisUnavailable },
    );
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'r' }, timestamp: '0' };
    await expect(processor.process(record, position, 'portin')).rejects.toBeInstanceOf(RetriableError);
    expect(records.size).toBe(0);
  });

  it('dead-letters poison (not Avro, no handler for the domain, too large) and answers only a requester with a correlation id', async () => {
    const { codec, processor } = setup(success);
    const notAvro = await processor.process({ key: null, value: Buffer.from('hello'), headers: {}, timestamp: '0' }, position, 'portin');
    expect(notAvro.outbound.map((m) => m.topic)).toEqual(['t.deadLetters']);
    const wrongDomain = await processor.process(
      { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'x' }, timestamp: '0' },
      position,
      'balance',
    );
    expect(wrongDomain.outbound.map((m) => m.topic)).toEqual(['t.deadLetters', 't.balanceReplies']);
    expect(wrongDomain.outbound[0].headers['x-dlq-reason']).toBe('NO_HANDLER');
    const big = await processor.process({ key: null, value: Buffer.alloc(2000), headers: { 'X-Correlation-Id': 'y' }, timestamp: '0' }, position, 'portin');
    expect(big.outbound[0].headers['x-dlq-reason']).toBe('TOO_LARGE');
    const bigHeaders = await processor.process(
      { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'z', junk: 'x'.repeat(2000) }, timestamp: '0' },
      position,
      'portin',
    );
    expect(bigHeaders.outbound[0].headers['x-dlq-reason']).toBe('TOO_LARGE');
  });
});

describe('CommandProcessor access control', () => {
  const hierarchy = CustomerHierarchy.parse({ partners: [{ id: 'P1', nodes: [{ id: 'B1' }, { id: 'B2' }] }, { id: 'P2' }] });
  /** A stand-in for the JWT authenticator: the token text is the caller's node. */
  const tokenIsCaller: Authenticator = {
    authenticate: async (authorization) => {
      if (!authorization?.startsWith('Bearer ')) throw new ServiceError('UNAUTHORIZED', 'The command carries no valid credentials: no Authorization header');
      return { customerId: authorization.slice('Bearer '.length) };
    },
    knows: () => false,
  };
  const secured = (handle: HandlerRegistration['handle'], admission?: PartnerAdmission) =>
    setup(handle, { authenticator: tokenIsCaller, authorizer: createHierarchyAuthorizer(hierarchy), ...(admission ? { admission } : {}) });
  const record = async (codec: MemoryCodec, headers: Record<string, string>, value?: Buffer) => ({
    key: null,
    value: value ?? (await codec.encode('', COMMAND, { gpsi: '14155550123' })),
    headers: { 'X-Correlation-Id': 'c1', ...headers },
    timestamp: '0',
  });

  it('answers nobody without valid credentials, whatever reply topic it names: records it on the DLQ without its value or token, before decoding anything', async () => {
    const { codec, processor, records, calls } = secured(success);
    const forged = { 'X-Reply-Topic': 'p.P2.portin.replies.v1', Authorization: 'Basic eA==' };
    for (const rec of [await record(codec, forged), await record(codec, {}, Buffer.from('not avro at all')), await record(codec, {}, Buffer.alloc(5000))]) {
      const result = await processor.process(rec, position, 'portin');
      expect(result.outcome).toBe('UNAUTHORIZED');
      expect(result.rejection).toEqual({ reason: 'UNAUTHORIZED', action: 'recorded' });
      expect(result.outbound.map((m) => [m.topic, m.headers['x-dlq-reason']])).toEqual([['t.deadLetters', 'UNAUTHENTICATED']]);
      const letter = result.outbound[0];
      expect(Object.keys(letter.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
      // Sealed like every dead letter: inside, the original headers without the token, and no value at all.
      const opened = openDeadLetter(
        { ciphertext: letter.value!, nonce: Buffer.from(letter.headers['x-dlq-nonce'] as string, 'base64') },
        'k',
        sealContext('k', position),
        new Map([['k', Buffer.alloc(32, 1)]]),
      );
      expect(opened.value).toBeNull();
      expect(opened.headers.map(([name]) => name.toLowerCase())).not.toContain('authorization');
    }
    expect(calls()).toBe(0);
    expect(records.size).toBe(0);
  });

  it("answers FORBIDDEN on the verified caller's own reply topic, never on a topic it names", async () => {
    const { codec, processor, calls } = secured(success);
    for (const [caller, header, topic] of [
      ['P1', 'P2', 'p.P1.portin.replies.v1'],
      ['B1', 'B2', 'p.P1.portin.replies.v1'],
      ['B1', 'P1', 'p.P1.portin.replies.v1'],
      ['P2', 'unknown', 'p.P2.portin.replies.v1'],
    ]) {
      const result = await processor.process(await record(codec, { Authorization: `Bearer ${caller}`, wholesaleCustomerId: header, 'X-Reply-Topic': 'p.P1.my.replies' }), position, 'portin');
      expect([result.outcome, result.outbound.map((m) => m.topic), result.rejection?.action]).toEqual(['FORBIDDEN', [topic], 'answered']);
    }
    expect(calls()).toBe(0);
  });

  it("on a partner's own command topic admits only that partner's callers; another is FORBIDDEN on its own reply topic, unhandled", async () => {
    const { codec, processor, calls } = secured(success);
    const onP1 = { topic: 'p.P1.portin.commands.v1', partition: 1, offset: '3' };
    let n = 0;
    const send = async (caller: string, at: typeof position) => processor.process(await record(codec, { Authorization: `Bearer ${caller}`, 'X-Correlation-Id': `own-${n++}` }), at, 'portin');
    for (const caller of ['P1', 'B1']) expect((await send(caller, onP1)).outcome).toBe('Success');
    const other = await send('P2', onP1);
    expect([other.outcome, other.outbound.map((m) => m.topic), other.rejection]).toEqual(['FORBIDDEN', ['p.P2.portin.replies.v1'], { reason: 'FORBIDDEN', action: 'answered' }]);
    expect(codec.read(other.outbound[0].value!)).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringContaining("partner P1's") } });
    // the shared topic keeps today's rules, and a topic merely inside the namespace is no command topic
    expect((await send('P2', position)).outcome).toBe('Success');
    expect((await send('P2', { ...onP1, topic: 'p.P1.portin.commands.v1.extra' })).outcome).toBe('Success');
    expect(calls()).toBe(4);
  });

  it('a verified caller the hierarchy does not know is refused like one without credentials (no partner topic to answer on)', async () => {
    const { codec, processor } = secured(success);
    const result = await processor.process(await record(codec, { Authorization: 'Bearer stranger' }), position, 'portin');
    expect([result.outcome, result.outbound.map((m) => m.topic), result.rejection]).toEqual(['UNAUTHORIZED', ['t.deadLetters'], { reason: 'UNAUTHORIZED', action: 'recorded' }]);
  });

  it("past the sender's refusal budget a refusal is only counted: nothing recorded, nothing answered", async () => {
    let left = 1;
    const budget: RejectedBudget = { take: () => left-- > 0, spent: () => false };
    const { codec, processor } = setup(success, { authenticator: tokenIsCaller, authorizer: createHierarchyAuthorizer(hierarchy), rejectedBudget: budget });
    const first = await processor.process(await record(codec, {}), position, 'portin');
    const second = await processor.process(await record(codec, {}), position, 'portin');
    const forbidden = await processor.process(await record(codec, { Authorization: 'Bearer P1', wholesaleCustomerId: 'P2' }), position, 'portin');
    expect([first.outbound.length, first.rejection?.action]).toEqual([1, 'recorded']);
    expect([second.outbound, second.rejection]).toEqual([[], { reason: 'UNAUTHORIZED', action: 'dropped' }]);
    expect([forbidden.outbound, forbidden.rejection]).toEqual([[], { reason: 'FORBIDDEN', action: 'dropped' }]);
  });

  it("while the claimed partner's refusal budget is spent, a token not verified before is shed unverified; a known one is served", async () => {
    let verifications = 0;
    const known = new Set(['Bearer P1']);
    const authenticator: Authenticator = { ...tokenIsCaller, authenticate: (a) => (verifications++, tokenIsCaller.authenticate(a)), knows: (a) => known.has(a ?? '') };
    const budget: RejectedBudget = { take: () => false, spent: () => true };
    const { codec, processor, calls } = setup(success, { authenticator, authorizer: createHierarchyAuthorizer(hierarchy), rejectedBudget: budget });
    const forged = await processor.process(await record(codec, { Authorization: 'Bearer P1.forged' }), position, 'portin');
    expect([forged.outcome, forged.outbound, forged.rejection, verifications]).toEqual(['UNAUTHORIZED', [], { reason: 'UNAUTHORIZED', action: 'shed' }, 0]);
    const valid = await processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin');
    expect([valid.outcome, verifications, calls()]).toEqual(['Success', 1, 1]);
  });

  it("answers on the acting partner's own reply topic; a requested one only inside its namespace, existing, with a partition in range", async () => {
    const { codec, processor } = secured(success);
    let n = 0;
    const answer = async (headers: Record<string, string | Buffer>) => {
      const correlationId = `route-${n++}`; // each one a new command, not a replay of the first
      const result = await processor.process(await record(codec, { Authorization: 'Bearer B1', 'X-Correlation-Id': correlationId, ...headers }), position, 'portin');
      const value = codec.read(result.outbound[0].value!) as { error?: { problems: { path: string; reason: string }[] } };
      return { topic: result.outbound[0].topic, partition: result.outbound[0].partition, problems: value.error?.problems.map((p) => `${p.path}: ${p.reason}`) };
    };
    expect(await answer({})).toEqual({ topic: 'p.P1.portin.replies.v1', partition: undefined, problems: undefined });
    expect(await answer({ 'X-Reply-Topic': 'p.P1.my.replies', kafka_replyPartition: '1' })).toEqual({ topic: 'p.P1.my.replies', partition: 1, problems: undefined });
    const refused = (path: string, reason: string) => ({ topic: 'p.P1.portin.replies.v1', partition: undefined, problems: [expect.stringMatching(new RegExp(`^headers\\.${path}: ${reason}`))] });
    expect(await answer({ 'X-Reply-Topic': 'p.P2.portin.replies.v1' })).toEqual(refused('X-Reply-Topic', 'must be a topic of your own namespace p\\.P1\\.'));
    expect(await answer({ kafka_replyTopic: '__consumer_offsets' })).toEqual(refused('X-Reply-Topic', 'must not name an internal'));
    expect(await answer({ 'X-Reply-Topic': 'p.P1.does.not.exist' })).toEqual(refused('X-Reply-Topic', 'names a topic that does not exist'));
    expect(await answer({ 'X-Reply-Topic': 'p.P1.portin.events.v1' })).toEqual(refused('X-Reply-Topic', 'must not name one of your event topics'));
    expect(await answer({ 'X-Reply-Topic': 'p.P1.balance.commands.v1' })).toEqual(refused('X-Reply-Topic', 'must not name one of your command topics'));
    expect(await answer({ kafka_replyPartition: '7' })).toEqual(refused('kafka_replyPartition', 'must be a partition of the reply topic \\(0 to 1\\)'));
    expect(await answer({ kafka_replyPartition: 'x' })).toEqual(refused('kafka_replyPartition', 'must be a partition'));
    // a partition the requested topic lacks: the refusal goes to the requested topic, where the requester
    // listens (its pending call completes), on the partition the usual rule gives
    expect(await answer({ 'X-Reply-Topic': 'p.P1.my.replies', kafka_replyPartition: '9' })).toEqual({
      topic: 'p.P1.my.replies',
      partition: undefined,
      problems: [expect.stringMatching(/^headers\.kafka_replyPartition: must be a partition of the reply topic \(0 to 1\)/)],
    });
  });

  it("AUTH_MODE=none: a known node is answered on its partner's topic; an unknown one on the legacy shared topic, where any existing topic may be asked for", async () => {
    const { codec, processor } = setup(success, { authorizer: createOpenAuthorizer(hierarchy) });
    let n = 0;
    const topicOf = async (headers: Record<string, string>) =>
      (await processor.process(await record(codec, { 'X-Correlation-Id': `none-${n++}`, ...headers }), position, 'portin')).outbound[0].topic;
    expect(await topicOf({ wholesaleCustomerId: 'B2' })).toBe('p.P1.portin.replies.v1');
    expect(await topicOf({ wholesaleCustomerId: 'nobody' })).toBe('t.portinReplies');
    expect(await topicOf({ 'X-Reply-Topic': 'legacy.replies' })).toBe('legacy.replies');
    expect(await topicOf({ wholesaleCustomerId: 'B2', 'X-Reply-Topic': 'legacy.replies' })).toBe('p.P1.portin.replies.v1');
  });

  it("publishes an event to the operator's topic and to its owner's partner topic: the same bytes and ce_id", async () => {
    const event = { topic: 'portinEvents' as const, recordName: 'wholesale.portin.v1.PortInActivationEvent', key: 'g', owner: 'B2', cloudEvent: { id: 'e1', subject: 'g', time: 't' } };
    const { codec, processor } = secured(async () => {
      const reply = (await success()).reply;
      const value = {
        eventId: 'e1',
        eventTime: 't',
        gpsi: 'g',
        partnerTransactionId: 'x',
        portOrderId: null,
        portOrderVersion: '1',
        portStatus: 'OPEN',
        previousPortStatus: null,
        reasonCode: null,
        reasonDescription: null,
        subscriberId: 's',
        wholesaleCustomerId: 'B2',
        correlationId: null,
      };
      return {
        reply,
        messages: [
          { ...event, value },
          { ...event, owner: 'nobody', value },
        ],
      };
    });
    const result = await processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin');
    const events = result.outbound.slice(1);
    expect(events.map((m) => m.topic)).toEqual(['t.portinEvents', 'p.P1.portin.events.v1', 't.portinEvents']);
    expect(events[1].value).toBe(events[0].value);
    expect(events.map((m) => m.headers.ce_id)).toEqual(['e1', 'e1', 'e1']);
  });

  it('gives the handler the acting node and a subtree check', async () => {
    const seen: { customer?: string; canSee: boolean[]; visible: readonly string[] }[] = [];
    const { codec, processor } = secured(async (_command, context) => {
      seen.push({ customer: context.wholesaleCustomerId, canSee: ['P1', 'B1', 'B2', 'P2'].map((o) => context.canSee(o)), visible: context.visibleCustomerIds });
      return success();
    });
    await processor.process(await record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': 'p' }), position, 'portin');
    await processor.process(await record(codec, { Authorization: 'Bearer P1', wholesaleCustomerId: 'B1', 'X-Correlation-Id': 'b' }), position, 'portin');
    expect(seen).toEqual([
      { customer: 'P1', canSee: [true, true, true, false], visible: ['P1', 'B1', 'B2'] },
      { customer: 'B1', canSee: [false, true, false, false], visible: ['B1'] },
    ]);
  });

  it('two partners reusing one correlation id never share a remembered reply', async () => {
    const { codec, processor, calls } = secured(success);
    const first = await processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin');
    const second = await processor.process(await record(codec, { Authorization: 'Bearer P2' }), { ...position, offset: '8' }, 'portin');
    expect([first.outcome, second.outcome, calls()]).toEqual(['Success', 'Success', 2]);
  });

  it('answers RATE_LIMITED when the partner is over its rate, counting the partner of the acting node', async () => {
    const partners: string[] = [];
    const limiter: PartnerAdmission = { admit: async (partner) => (partners.push(partner), { allowed: partner !== 'P1', retryAfterMs: 250 }), uncount: () => undefined, refund: () => undefined };
    const { codec, processor, calls, records } = secured(success, limiter);
    const limited = await processor.process(await record(codec, { Authorization: 'Bearer P1', wholesaleCustomerId: 'B2' }), position, 'portin');
    expect(limited.outcome).toBe('RATE_LIMITED');
    expect(codec.read(limited.outbound[0].value!)).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('retry in 250 ms') } });
    const served = await processor.process(await record(codec, { Authorization: 'Bearer P2' }), position, 'portin');
    expect([served.outcome, served.customer, limited.customer]).toEqual(['Success', 'P2', 'B2']); // the audit line names who acted
    expect([partners, calls(), records.size]).toEqual([['P1', 'P2'], 1, 1]);
  });

  it('over its idempotency quota a partner gets RATE_LIMITED naming the quota: nothing applied or recorded, a recorded change still replays, another partner is served', async () => {
    const { codec, processor, calls, records, admission } = secured(success);
    admission.quotas.set('P1', 1);
    const first = await processor.process(await record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': 'a' }), position, 'portin');
    const refused = await processor.process(await record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': 'b' }), position, 'portin');
    expect([first.outcome, refused.outcome, calls(), records.size]).toEqual(['Success', 'RATE_LIMITED', 1, 1]);
    const message = codec.read(refused.outbound[0].value!).error.message as string;
    expect(message).toMatch(/^The partner's idempotency quota is exhausted: 1 changes recorded within 60 s, the quota is 1/);
    expect(message).not.toMatch(/rate/);
    const replayed = await processor.process(await record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': 'a' }), { ...position, offset: '9' }, 'portin');
    const other = await processor.process(await record(codec, { Authorization: 'Bearer P2', 'X-Correlation-Id': 'b' }), position, 'portin');
    expect([replayed.outcome, other.outcome, calls()]).toEqual(['REPLAYED', 'Success', 2]);
  });

  it('a recorded outcome wins over the rate: a change over the rate replays what it recorded, a new one is refused unapplied, and the rate is asked with the send time', async () => {
    const { codec, processor, calls, records, admission } = secured(success);
    const sent = (id: string, timestamp: string) => record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': id }).then((r) => ({ ...r, timestamp }));
    const first = await processor.process(await sent('a', '1700000000123'), position, 'portin');
    admission.overRate.add('P1');
    const again = await processor.process(await sent('a', '1700000005000'), { ...position, offset: '9' }, 'portin');
    const fresh = await processor.process(await sent('b', '1700000005001'), { ...position, offset: '10' }, 'portin');
    expect([first.outcome, again.outcome, fresh.outcome, calls(), records.size]).toEqual(['Success', 'REPLAYED', 'RATE_LIMITED', 1, 1]);
    expect(again.outbound).toEqual(first.outbound); // the same answer, byte for byte
    expect(codec.read(fresh.outbound[0].value!)).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('retry in 400 ms') } });
    expect(admission.sentAt).toEqual([1700000000123, 1700000005000, 1700000005001]);
    expect(admission.refunds).toEqual([]); // refused its rate: nothing was charged, nothing to give back
  });

  it('an admitted change answered from its recorded outcome is given its rate back, at its send time', async () => {
    const { codec, processor, admission } = secured(success);
    const sent = (timestamp: string) => record(codec, { Authorization: 'Bearer P1', 'X-Correlation-Id': 'r' }).then((r) => ({ ...r, timestamp }));
    await processor.process(await sent('1700000000000'), position, 'portin');
    const replayed = await processor.process(await sent('1700000001000'), { ...position, offset: '9' }, 'portin');
    expect([replayed.outcome, admission.refunds]).toEqual(['REPLAYED', [['P1', 1700000001000]]]);
  });

  it('a query over the rate is refused before it is decoded', async () => {
    const { codec, processor, calls, admission } = setup(success, { authenticator: tokenIsCaller, authorizer: createHierarchyAuthorizer(hierarchy) }, { readOnly: true });
    admission.overRate.add('P1');
    const decodes = codec.decodes;
    const refused = await processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin');
    expect([refused.outcome, calls(), codec.decodes - decodes]).toEqual(['RATE_LIMITED', 0, 0]);
  });

  it('a query is never counted against the idempotency quota', async () => {
    const { codec, processor, admission } = setup(success, { authenticator: tokenIsCaller, authorizer: createHierarchyAuthorizer(hierarchy) }, { readOnly: true });
    admission.quotas.set('P1', 0);
    const queried = await processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin');
    expect([queried.outcome, admission.counted.size]).toEqual(['Success', 0]);
  });

  it('a limiter that cannot reach Redis makes the record retriable, not refused', async () => {
    const { codec, processor } = secured(success, { admit: async () => Promise.reject(new Error('redis down')), uncount: () => undefined, refund: () => undefined });
    await expect(processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin')).rejects.toBeInstanceOf(RetriableError);
  });

  it('refuses a change whose record is older than the window with STALE_COMMAND: not applied, not recorded, no rate used', async () => {
    const now = new Date('2026-11-21T10:00:00Z').getTime();
    let admitted = 0;
    const limiter: PartnerAdmission = { admit: async () => (admitted++, { allowed: true, retryAfterMs: 0 }), uncount: () => undefined, refund: () => undefined };
    const { codec, processor, records, calls } = setup(success, { admission: limiter }, {}, { maxCommandAgeMs: 60_000 });
    const value = await codec.encode('', COMMAND, { gpsi: '14155550123' });
    const at = (ageMs: number) => ({ key: null, value, headers: { 'X-Correlation-Id': `c${ageMs}` }, timestamp: String(now - ageMs) });
    const stale = await processor.process(at(60_001), position, 'portin');
    expect(stale.outcome).toBe('STALE_COMMAND');
    expect(stale.outbound[0]).toMatchObject({ key: 'c60001', headers: { 'X-Status': 'STALE_COMMAND' } });
    expect(codec.read(stale.outbound[0].value!)).toMatchObject({ error: { code: 'STALE_COMMAND', message: expect.stringContaining('60 s old') } });
    expect([calls(), records.size, admitted]).toEqual([0, 0, 0]);
    expect((await processor.process(at(60_000), position, 'portin')).outcome).toBe('Success');
  });

  it("a recorded outcome wins over the record's age: a stale redelivery of an applied change replays it, uncharged", async () => {
    const now = new Date('2026-11-21T10:00:00Z').getTime();
    const { codec, processor, admission, calls } = setup(success, {}, {}, { maxCommandAgeMs: 60_000 });
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'applied' } };
    const first = await processor.process({ ...record, timestamp: String(now - 1000) }, position, 'portin');
    const late = await processor.process({ ...record, timestamp: String(now - 60_001) }, { ...position, offset: '8' }, 'portin');
    expect([first.outcome, late.outcome, calls()]).toEqual(['Success', 'REPLAYED', 1]);
    expect(late.outbound).toEqual(first.outbound);
    expect([admission.sentAt.length, admission.refunds]).toEqual([1, []]); // asked the rate once: the stale one was never charged
  });

  it('a stale query is refused before it is decoded', async () => {
    const { codec, processor, calls } = setup(success, {}, { readOnly: true }, { maxCommandAgeMs: 60_000 });
    const decodes = codec.decodes;
    const stale = await processor.process(
      { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: {}, timestamp: String(new Date('2026-11-21T10:00:00Z').getTime() - 60_001) },
      position,
      'portin',
    );
    expect([stale.outcome, calls(), codec.decodes - decodes]).toEqual(['STALE_COMMAND', 0, 0]);
  });

  it("problems of a change's situation (the clock, the catalog) refuse it only when no outcome is recorded; with the form's they are listed together", async () => {
    let dueDateGone = false;
    const situation = (c: { gpsi: string }, now: Date) =>
      dueDateGone ? [{ path: 'desiredDueDate', reason: `too early on ${now.toISOString()}` }] : c.gpsi.endsWith('9') ? [{ path: 'gpsi', reason: 'not in the catalog' }] : [];
    const { codec, processor, calls, records } = setup(success, {}, { situation });
    const record = async (gpsi: string, id: string) => ({ key: null, value: await codec.encode('', COMMAND, { gpsi }), headers: { 'X-Correlation-Id': id }, timestamp: '0' });
    const first = await processor.process(await record('14155550123', 'a'), position, 'portin');
    dueDateGone = true;
    const again = await processor.process(await record('14155550123', 'a'), { ...position, offset: '8' }, 'portin');
    expect([first.outcome, again.outcome, calls()]).toEqual(['Success', 'REPLAYED', 1]);
    expect(again.outbound).toEqual(first.outbound);
    const fresh = await processor.process(await record('14155550123', 'b'), position, 'portin');
    expect([fresh.outcome, calls(), records.size]).toEqual(['BAD_REQUEST', 1, 1]);
    expect(codec.read(fresh.outbound[0].value!)).toMatchObject({ error: { code: 'BAD_REQUEST', problems: [{ path: 'desiredDueDate', reason: 'too early on 2026-11-21T10:00:00.000Z' }] } });
    const both = await processor.process(await record('1', 'c'), position, 'portin');
    expect(codec.read(both.outbound[0].value!).error.problems.map((p: { path: string }) => p.path)).toEqual(['gpsi', 'desiredDueDate']);
  });

  it('a query with problems of its situation is refused with them: it records nothing to replay', async () => {
    const { codec, processor, calls } = setup(success, {}, { readOnly: true, situation: () => [{ path: 'gpsi', reason: 'not in the catalog' }] });
    const refused = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: {}, timestamp: '0' }, position, 'portin');
    expect([refused.outcome, calls()]).toEqual(['BAD_REQUEST', 0]);
  });

  it('dead-letters an event that does not match its schema and still answers and sends the rest', async () => {
    const event = (value: Record<string, unknown>) => ({
      topic: 'balanceEvents' as const,
      recordName: 'wholesale.balance.v1.BalancesUpdated',
      key: '14155550123',
      value,
      cloudEvent: { id: 'e1', subject: '14155550123', time: 'now' },
    });
    const { codec, processor } = setup(async () => ({ ...(await success()), messages: [event({ not: 'a BalancesUpdated' })] }));
    const value = await codec.encode('', COMMAND, { gpsi: '14155550123' });
    const result = await processor.process({ key: null, value, headers: { 'X-Correlation-Id': 'c1' }, timestamp: '5' }, position, 'portin');
    expect(result.outcome).toBe('Success');
    expect(result.outbound.map((m) => m.topic)).toEqual(['t.portinReplies', 't.deadLetters']);
    const letter = result.outbound[1];
    expect(letter).toMatchObject({
      key: Buffer.from('14155550123'),
      headers: { 'x-dlq-reason': 'UNDELIVERABLE', 'x-dlq-target-topic': 't.balanceEvents', 'x-dlq-source-offset': '7', 'x-dlq-source-timestamp': '5', 'x-dlq-cipher': 'AES-256-GCM' },
    });
    // Sealed like every dead letter: the event as JSON and its own headers only inside.
    const opened = openDeadLetter(
      { ciphertext: letter.value!, nonce: Buffer.from(letter.headers['x-dlq-nonce'] as string, 'base64') },
      'k',
      sealContext('k', position),
      new Map([['k', Buffer.alloc(32, 1)]]),
    );
    expect(opened.value).toEqual(Buffer.from('{"not":"a BalancesUpdated"}'));
    expect(opened.headers).toContainEqual(['ce_id', 'e1']);
    expect(letter.headers.ce_id).toBeUndefined();
  });
});
