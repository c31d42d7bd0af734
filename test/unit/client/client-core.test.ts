import { coalescing } from '../../../src/adapters/kafka/record-producer';
import type { Outbound } from '../../../src/contract/transport';
import { asSchemaMismatch } from '../../../src/adapters/registry/avro-codec';
import { SchemaMismatchError } from '../../../src/contract/codec';
import { TOPIC_RECORDS } from '../../../src/adapters/registry/topology';
import { COMMAND_TOPICS, ERROR_REPLY } from '../../../src/contract/topics';
import { asInvalidCommand, ClientClosedError, fieldPath, InvalidCommandError, RequestTimeoutError, ServiceReplyError, WholesaleClientError } from '../../../src/client/errors';
import { EVENT_RECORDS } from '../../../src/client/events';
import { commandKey, operationRecordName, OPERATIONS, replyTopicRole, type OperationName } from '../../../src/client/operations';
import { PendingReplies } from '../../../src/client/pending-replies';
import { interpretReply } from '../../../src/client/replies';

describe('the operations table', () => {
  it('names records the topology puts on the operation’s command topic and on its reply topic', () => {
    for (const [name, spec] of Object.entries(OPERATIONS)) {
      expect(TOPIC_RECORDS[spec.commandTopic]).toContain(spec.command);
      expect(TOPIC_RECORDS[replyTopicRole(name as OperationName)]).toContain(spec.reply);
    }
  });

  it('covers every command record of the topology, so no operation lacks a method', () => {
    const commands = Object.keys(COMMAND_TOPICS).flatMap((role) => TOPIC_RECORDS[role as keyof typeof COMMAND_TOPICS]);
    expect(
      Object.values(OPERATIONS)
        .map((o) => o.command)
        .sort(),
    ).toEqual([...commands].sort());
  });

  it('lists exactly the event records of the topology', () => {
    expect([...EVENT_RECORDS].sort()).toEqual([...TOPIC_RECORDS.portinEvents, ...TOPIC_RECORDS.balanceEvents].sort());
  });

  it("keys a command by a port order's orderId, else gpsi, else partnerTransactionId, else portOrderId", () => {
    expect(commandKey({ orderId: 'ORD-1', gpsi: '19459986891' })).toBe('ORD-1');
    expect(commandKey({ gpsi: '19459986891', partnerTransactionId: 'P' })).toBe('19459986891');
    expect(commandKey({ gpsi: null, partnerTransactionId: 'P', portOrderId: 'O' })).toBe('P');
    expect(commandKey({ portOrderId: 'O' })).toBe('O');
    expect(commandKey({ gpsi: '' })).toBeNull();
    expect(operationRecordName('queryBalanceHistory')).toBe('QueryBalanceHistory');
  });
});

describe('interpreting a reply', () => {
  it('returns the success record’s value', () => {
    const value = { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: 'now', reasonCode: null, reasonDesc: null };
    expect(interpretReply('checkPortInEligibility', 'c', { recordName: 'wholesale.portin.v1.CheckPortInEligibilityReply', value })).toBe(value);
  });

  it('raises an ErrorReply as ServiceReplyError with its code, message and problems', () => {
    const value = { status: 'NOT_FOUND', operation: 'QueryBalances', error: { code: 'NOT_FOUND', message: 'no subscription', problems: [{ path: 'gpsi', reason: 'unknown' }] } };
    let thrown: unknown;
    try {
      interpretReply('queryBalances', 'c-9', { recordName: ERROR_REPLY, value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceReplyError);
    expect(thrown).toBeInstanceOf(WholesaleClientError);
    expect(thrown).toMatchObject({ code: 'NOT_FOUND', serviceMessage: 'no subscription', correlationId: 'c-9', problems: [{ path: 'gpsi', reason: 'unknown' }] });
    expect((thrown as Error).message).toBe('queryBalances: NOT_FOUND: no subscription (gpsi: unknown)');
  });

  it('refuses a reply of another operation', () => {
    expect(() => interpretReply('queryBalances', 'c', { recordName: 'wholesale.balance.v1.AddBucketsReply', value: {} })).toThrow(
      'queryBalances: expected a wholesale.balance.v1.QueryBalancesReply reply, got wholesale.balance.v1.AddBucketsReply',
    );
  });
});

describe('pending replies', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('settles each call with its own reply; a second reply for the same id is ignored', async () => {
    const pending = new PendingReplies<string>();
    const a = pending.wait('op', 'a', 5000);
    const b = pending.wait('op', 'b', 5000);
    expect(pending.resolve('b', 'reply-b')).toBe(true);
    expect(pending.resolve('a', 'reply-a')).toBe(true);
    expect(pending.resolve('a', 'again')).toBe(false);
    expect(pending.resolve('nobody', 'x')).toBe(false);
    await expect(a).resolves.toBe('reply-a');
    await expect(b).resolves.toBe('reply-b');
    expect(pending.size).toBe(0);
  });

  it('times a call out with RequestTimeoutError, after which its reply finds nobody', async () => {
    const pending = new PendingReplies<string>();
    const call = pending.wait('queryBalances', 'late', 5000);
    jest.advanceTimersByTime(4999);
    expect(pending.has('late')).toBe(true);
    jest.advanceTimersByTime(1);
    await expect(call).rejects.toEqual(new RequestTimeoutError('queryBalances', 'late', 5000));
    expect(pending.resolve('late', 'too late')).toBe(false);
  });

  it('refuses a second call waiting on the same correlation id, and rejects all waiting calls on close', async () => {
    const pending = new PendingReplies<string>();
    const first = pending.wait('op', 'x', 5000);
    await expect(pending.wait('op', 'x', 5000)).rejects.toThrow('already waiting');
    pending.close();
    await expect(first).rejects.toBeInstanceOf(ClientClosedError);
    expect(pending.size).toBe(0);
  });
});

describe('the client library’s sends', () => {
  const message = (key: string, topic = 't'): Outbound => ({ topic, key, value: null, headers: {} });

  it('makes one sender call for the sends of one turn, and a refused message fails its own send only', async () => {
    const calls: string[][] = [];
    const sender = {
      send: async (messages: Outbound[]) => {
        calls.push(messages.map((m) => String(m.key)));
        return messages.filter((m) => m.key === 'bad').map((m) => ({ message: m, reason: 'MESSAGE_TOO_LARGE: too large' }));
      },
    };
    const send = coalescing(sender);
    const results = await Promise.allSettled([send(message('a')), send(message('bad')), send(message('c', 'u'))]);
    expect(calls).toEqual([['a', 'bad', 'c']]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('Kafka refused the message to t: MESSAGE_TOO_LARGE: too large');
    await send(message('later'));
    expect(calls).toHaveLength(2);
  });

  it('fails every send of a call that failed (Kafka away)', async () => {
    const send = coalescing({ send: async () => Promise.reject(new Error('broker down')) });
    const results = await Promise.allSettled([send(message('a')), send(message('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('a command that does not fit its schema', () => {
  it('becomes InvalidCommandError with the service’s path notation (the codec translating the registry client’s error)', () => {
    const { ConfluentSchemaRegistryValidationError } = jest.requireActual('@kafkajs/confluent-schema-registry/dist/errors');
    const refused = asSchemaMismatch(new ConfluentSchemaRegistryValidationError(new Error('invalid'), [['gpsi'], ['balances', '0', 'quantity']]));
    expect(refused).toBeInstanceOf(SchemaMismatchError);
    const error = asInvalidCommand('updateBalances', refused);
    expect(error).toBeInstanceOf(InvalidCommandError);
    expect(error?.problems.map((p) => p.path)).toEqual(['gpsi', 'balances[0].quantity']);
    expect(asInvalidCommand('x', asSchemaMismatch(new Error('other')))).toBeUndefined();
    expect(fieldPath(['a', '12', 'b', 'c'])).toBe('a[12].b.c');
  });
});
