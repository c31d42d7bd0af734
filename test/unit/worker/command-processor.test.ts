import avro, { type Type } from 'avsc';
import pino from 'pino';
import { loadSchemas } from '../../../src/contract/schemas';
import { DecodeError } from '../../../src/adapters/registry/avro-codec';
import { isRedisUnavailable } from '../../../src/adapters/redis/client';
import type { ReplyCache, StoredOutcome } from '../../../src/adapters/redis/reply-cache';
import { CommandProcessor, type Codec, type ProcessorDeps } from '../../../src/worker/command-processor';
import { createHierarchyAuthorizer, createOpenAuthorizer, unlimited, type Authenticator, type RateLimiter } from '../../../src/security/access';
import { CustomerHierarchy } from '../../../src/security/hierarchy';
import { openAuthenticator } from '../../../src/security/jwt-authenticator';
import { ServiceError, RetriableError } from '../../../src/errors/codes';
import type { HandlerRegistration, TopicRole } from '../../../src/handlers/types';
import { WHOLESALE_CUSTOMER_ID_PORTIN } from '../../../src/domain/validation/spec-fields';

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
    return Buffer.concat([header, this.types[id].toBuffer(value)]);
  }
  async decode(buffer: Buffer | null) {
    if (!buffer || buffer[0] !== 0) throw new DecodeError('NOT_AVRO', 'not avro');
    const id = buffer.readUInt32BE(1);
    const type = this.types[id];
    if (!type) throw new DecodeError('UNKNOWN_SCHEMA', `unknown ${id}`);
    return { schemaId: id, recordName: type.name!, value: type.fromBuffer(buffer.subarray(5)) };
  }
  read(buffer: Buffer) {
    return this.types[buffer.readUInt32BE(1)].fromBuffer(buffer.subarray(5));
  }
}

class MemoryReplyCache implements ReplyCache {
  readonly entries = new Map<string, StoredOutcome>();
  async get(id: string) {
    return this.entries.get(id);
  }
  async put(id: string, outcome: StoredOutcome) {
    if (!this.entries.has(id)) this.entries.set(id, outcome);
  }
}

const topics = Object.fromEntries(
  ['portinCommands', 'portinReplies', 'balanceCommands', 'balanceReplies', 'portinEvents', 'balanceEvents', 'deadLetters', 'npRequests', 'npResponses'].map((r) => [r, `t.${r}`]),
) as Record<TopicRole, string>;

const COMMAND = 'wholesale.portin.v1.CheckPortInEligibility';

function setup(
  handle: HandlerRegistration['handle'],
  access: Partial<Pick<ProcessorDeps, 'authenticator' | 'authorizer' | 'rateLimiter' | 'isRetriable'>> = {},
  options: Pick<HandlerRegistration, 'readOnly'> = {},
) {
  const codec = new MemoryCodec();
  const replies = new MemoryReplyCache();
  let calls = 0;
  const registration: HandlerRegistration = {
    domain: 'portin',
    commandRecord: COMMAND,
    replyRecord: 'wholesale.portin.v1.CheckPortInEligibilityReply',
    validate: (c: { gpsi: string }) => (c.gpsi.length < 11 ? [{ path: 'gpsi', reason: 'too short' }] : []),
    ...options,
    handle: async (command, context) => {
      calls++;
      return handle(command, context);
    },
  };
  const rules = { defaultReplyTopic: topics.portinReplies, forbiddenReplyTopics: new Set<string>(), wholesaleCustomerId: WHOLESALE_CUSTOMER_ID_PORTIN };
  const processor = new CommandProcessor({
    codec,
    handlers: new Map([[COMMAND, registration]]),
    replies,
    topics,
    envelopeRules: { portin: rules, balance: { ...rules, defaultReplyTopic: topics.balanceReplies } },
    maxMessageBytes: 1000,
    serviceName: 'svc',
    clock: () => new Date('2026-11-21T10:00:00Z'),
    log: pino({ level: 'silent' }),
    isRetriable: (e) => e instanceof Error && e.message === 'redis down',
    authenticator: openAuthenticator,
    authorizer: createOpenAuthorizer(undefined),
    rateLimiter: unlimited,
    ...access,
  });
  return { codec, replies, processor, calls: () => calls };
}

const position = { topic: 't.portinCommands', partition: 0, offset: '7' };
const success = async () => ({ reply: { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: 'now', reasonCode: null, reasonDesc: null } });

describe('CommandProcessor', () => {
  it('routes by record name, answers on the reply topic keyed by correlation id, and remembers the outcome', async () => {
    const { codec, processor, replies } = setup(success);
    const value = await codec.encode('', COMMAND, { gpsi: '14155550123' });
    const result = await processor.process({ key: null, value, headers: { 'X-Correlation-Id': 'c1' }, timestamp: '0' }, position, 'portin');
    expect(result.outcome).toBe('Success');
    expect(result.outbound).toHaveLength(1);
    expect(result.outbound[0]).toMatchObject({ topic: 't.portinReplies', key: 'c1', headers: { 'X-Status': 'Success' } });
    expect(codec.read(result.outbound[0].value!)).toMatchObject({ eligibilityStatus: 'Eligible' });
    expect(replies.entries.size).toBe(1);
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
    const { codec, processor, replies, calls } = setup(async () => ({ reply: { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: `check ${++checks}`, reasonCode: null, reasonDesc: null } }), {}, { readOnly: true });
    const record = async (gpsi: string) => ({ key: null, value: await codec.encode('', COMMAND, { gpsi }), headers: { 'X-Correlation-Id': 'c1' }, timestamp: '0' });
    const first = await processor.process(await record('14155550123'), position, 'portin');
    const again = await processor.process(await record('14155550123'), { ...position, offset: '8' }, 'portin');
    expect(calls()).toBe(2);
    expect(first.outcome).toBe('Success');
    expect(again.outcome).toBe('Success');
    expect(codec.read(again.outbound[0].value!)).toMatchObject({ checkedDate: 'check 2' });
    expect(replies.entries.size).toBe(0);
  });

  it('maps a ServiceError to an ErrorReply with its code and problems; validation problems skip the handler', async () => {
    const { codec, processor, calls } = setup(async () => {
      throw new ServiceError('CONFLICT', 'port in progress');
    });
    const conflict = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'a' }, timestamp: '0' }, position, 'portin');
    expect(conflict.outcome).toBe('CONFLICT');
    expect(codec.read(conflict.outbound[0].value!)).toMatchObject({ status: 'CONFLICT', operation: 'CheckPortInEligibility', error: { code: 'CONFLICT', message: 'port in progress' } });
    const bad = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '1' }), headers: { 'X-Correlation-Id': 'b' }, timestamp: '0' }, position, 'portin');
    expect(codec.read(bad.outbound[0].value!)).toMatchObject({ status: 'BAD_REQUEST', error: { problems: [{ path: 'gpsi', reason: 'too short' }] } });
    expect(calls()).toBe(1);
  });

  it('answers INTERNAL for an unexpected handler failure and does not remember it', async () => {
    const { codec, processor, replies } = setup(async () => {
      throw new TypeError('bug');
    });
    const result = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'a' }, timestamp: '0' }, position, 'portin');
    expect(result.outcome).toBe('INTERNAL');
    expect(replies.entries.size).toBe(0);
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
    const { codec, processor, replies } = setup(async () => {
      throw Object.assign(new Error(message), { name: 'ReplyError' });
    }, { rateLimiter: unlimited, isRetriable: isRedisUnavailable });
    const record = { key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'r' }, timestamp: '0' };
    await expect(processor.process(record, position, 'portin')).rejects.toBeInstanceOf(RetriableError);
    expect(replies.entries.size).toBe(0);
  });

  it('dead-letters poison (not Avro, no handler for the domain, too large) and answers only a requester with a correlation id', async () => {
    const { codec, processor } = setup(success);
    const notAvro = await processor.process({ key: null, value: Buffer.from('hello'), headers: {}, timestamp: '0' }, position, 'portin');
    expect(notAvro.outbound.map((m) => m.topic)).toEqual(['t.deadLetters']);
    const wrongDomain = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'x' }, timestamp: '0' }, position, 'balance');
    expect(wrongDomain.outbound.map((m) => m.topic)).toEqual(['t.deadLetters', 't.balanceReplies']);
    expect(wrongDomain.outbound[0].headers['x-dlq-reason']).toBe('NO_HANDLER');
    const big = await processor.process({ key: null, value: Buffer.alloc(2000), headers: { 'X-Correlation-Id': 'y' }, timestamp: '0' }, position, 'portin');
    expect(big.outbound[0].headers['x-dlq-reason']).toBe('TOO_LARGE');
    const bigHeaders = await processor.process({ key: null, value: await codec.encode('', COMMAND, { gpsi: '14155550123' }), headers: { 'X-Correlation-Id': 'z', junk: 'x'.repeat(2000) }, timestamp: '0' }, position, 'portin');
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
  };
  const secured = (handle: HandlerRegistration['handle'], rateLimiter: RateLimiter = unlimited) =>
    setup(handle, { authenticator: tokenIsCaller, authorizer: createHierarchyAuthorizer(hierarchy), rateLimiter });
  const record = async (codec: MemoryCodec, headers: Record<string, string>, value?: Buffer) => ({
    key: null,
    value: value ?? (await codec.encode('', COMMAND, { gpsi: '14155550123' })),
    headers: { 'X-Correlation-Id': 'c1', ...headers },
    timestamp: '0',
  });

  it('answers UNAUTHORIZED before decoding or sizing anything: no handler, no dead letter, nothing remembered', async () => {
    const { codec, processor, replies, calls } = secured(success);
    for (const rec of [await record(codec, {}), await record(codec, {}, Buffer.from('not avro at all')), await record(codec, {}, Buffer.alloc(5000))]) {
      const result = await processor.process(rec, position, 'portin');
      expect(result.outcome).toBe('UNAUTHORIZED');
      expect(result.outbound.map((m) => m.topic)).toEqual(['t.portinReplies']);
      expect(codec.read(result.outbound[0].value!)).toMatchObject({ status: 'UNAUTHORIZED', operation: null, error: { code: 'UNAUTHORIZED' } });
    }
    expect(calls()).toBe(0);
    expect(replies.entries.size).toBe(0);
  });

  it('answers FORBIDDEN for a wholesaleCustomerId outside the caller\'s subtree', async () => {
    const { codec, processor, calls } = secured(success);
    for (const [caller, header] of [['P1', 'P2'], ['B1', 'B2'], ['B1', 'P1'], ['P1', 'unknown']]) {
      const result = await processor.process(await record(codec, { Authorization: `Bearer ${caller}`, wholesaleCustomerId: header }), position, 'portin');
      expect(result.outcome).toBe('FORBIDDEN');
    }
    expect(calls()).toBe(0);
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

  it('answers RATE_LIMITED when the partner\'s bucket is empty, counting the partner of the acting node', async () => {
    const partners: string[] = [];
    const limiter: RateLimiter = { admit: async (partner) => (partners.push(partner), { allowed: partner !== 'P1', retryAfterMs: 250 }) };
    const { codec, processor, calls, replies } = secured(success, limiter);
    const limited = await processor.process(await record(codec, { Authorization: 'Bearer P1', wholesaleCustomerId: 'B2' }), position, 'portin');
    expect(limited.outcome).toBe('RATE_LIMITED');
    expect(codec.read(limited.outbound[0].value!)).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('retry in 250 ms') } });
    const served = await processor.process(await record(codec, { Authorization: 'Bearer P2' }), position, 'portin');
    expect([served.outcome, served.customer, limited.customer]).toEqual(['Success', 'P2', undefined]); // the audit line names who acted
    expect([partners, calls(), replies.entries.size]).toEqual([['P1', 'P2'], 1, 1]);
  });

  it('a limiter that cannot reach Redis makes the record retriable, not refused', async () => {
    const { codec, processor } = secured(success, { admit: async () => Promise.reject(new Error('redis down')) });
    await expect(processor.process(await record(codec, { Authorization: 'Bearer P1' }), position, 'portin')).rejects.toBeInstanceOf(RetriableError);
  });
});
