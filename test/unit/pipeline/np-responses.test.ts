import pino from 'pino';
import { isRedisUnavailable } from '../../../src/adapters/redis/client';
import { DecodeError } from '../../../src/contract/codec';
import { RetriableError } from '../../../src/contract/errors';
import type { OutgoingMessage } from '../../../src/contract/messages';
import { createNpResponseRecordProcessor, type NpResponseConsumerDeps } from '../../../src/pipeline/np-responses';

/**
 * The NP responses' record processor decides what the batch worker does with a failure: a RetriableError
 * holds the record (retried until done), anything else dead-letters it. A port's transition must never be
 * dead-lettered for a failure that passes.
 */
const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
const EVENT: OutgoingMessage = { topic: 'portinEvents', recordName: 'wholesale.portin.v1.PortInEvent', key: '19459986891', value: {} };
const record = { key: Buffer.from('19459986891'), value: Buffer.from([0, 0, 0, 0, 1]), headers: {}, timestamp: '0', attributes: 0, offset: '3' };
const position = { topic: 'np.responses', partition: 0, offset: '3' };

function processorWith(overrides: Partial<NpResponseConsumerDeps>) {
  return createNpResponseRecordProcessor({
    codec: { decode: async () => ({ schemaId: 1, recordName: 'np.portin.v1.ActivationComplete', value: {} }) },
    process: async () => [EVENT],
    encode: async (messages) => messages.map((m) => ({ topic: m.topic, key: m.key, value: Buffer.from('event'), headers: {} })),
    deadLetters: { topic: 'dlq', key: { id: 'k', secret: Buffer.alloc(32, 1) } },
    clock: () => new Date(0),
    log: pino({ level: 'silent' }),
    isRetriable: isRedisUnavailable,
    ...overrides,
  });
}

describe('NP response record processor: what is retried, what is dead-lettered', () => {
  it.each([
    ['Redis out of memory', replyError("OOM command not allowed when used memory > 'maxmemory'.")],
    ['Redis turned replica by a failover', replyError("READONLY You can't write against a read only replica.")],
    ['Redis busy with a script', replyError('BUSY Redis is busy running a script.')],
    ['Redis asking for credentials', replyError('NOAUTH Authentication required.')],
    ['Redis loading', replyError('LOADING Redis is loading the dataset in memory')],
    ['a follow-up not done', new RetriableError('the follow-ups are not done')],
  ])('%s while processing: retried', async (_why, failure) => {
    const processor = processorWith({ process: async () => Promise.reject(failure) });
    await expect(processor(record, position)).rejects.toBeInstanceOf(RetriableError);
  });

  it('the events of a recorded transition not encoded (the registry away): retried, not dead-lettered', async () => {
    const processor = processorWith({ encode: async () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8081'), { code: 'ECONNREFUSED' })) });
    await expect(processor(record, position)).rejects.toBeInstanceOf(RetriableError);
  });

  it('a bug while processing is not retried forever: the batch worker dead-letters it', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'gpsi')");
    const processor = processorWith({ process: async () => Promise.reject(bug) });
    await expect(processor(record, position)).rejects.toBe(bug);
  });

  it('an undecodable record is dead-lettered at once', async () => {
    const processor = processorWith({ codec: { decode: async () => Promise.reject(new DecodeError('UNDECODABLE', 'bad body')) } });
    const outcome = await processor(record, position);
    expect(outcome.outcome).toBe('DEAD_LETTER');
    expect(outcome.outbound.map((m) => m.topic)).toEqual(['dlq']);
  });

  it('returns the events of an applied response as its outputs (the batch loop sends them, with its offset)', async () => {
    const encoded: OutgoingMessage[][] = [];
    const processor = processorWith({ encode: async (messages) => (encoded.push(messages), [{ topic: 'portin.events', key: '19459986891', value: Buffer.from('e'), headers: {} }]) });
    const outcome = await processor(record, position);
    expect(outcome).toMatchObject({ outcome: 'Applied', operation: 'ActivationComplete' });
    expect(encoded).toEqual([[EVENT]]);
    expect(outcome.outbound.map((m) => m.topic)).toEqual(['portin.events']);
  });
});
