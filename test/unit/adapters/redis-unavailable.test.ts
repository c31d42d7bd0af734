import { isRedisUnavailable } from '../../../src/adapters/redis/client';

/** ioredis's error classes (from redis-errors) are identified by name and message. */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('isRedisUnavailable: Redis away means retry, not an error reply', () => {
  it.each([
    ['a pipelined command aborted by a closed connection', named('AbortError', 'Command aborted due to connection close')],
    ['max retries per request', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 3).')],
    ['a closed connection', new Error('Connection is closed.')],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:6379')],
    ['Redis loading its data', named('ReplyError', 'LOADING Redis is loading the dataset in memory')],
    ['a command not answered within commandTimeout', new Error('Command timed out')],
  ])('%s is retriable', (_name, error) => {
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it.each([
    ['a Lua script error', named('ReplyError', 'ERR user_script:12: attempt to compare nil with number')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'gpsi')")],
    ['not an error', 'Connection is closed'],
  ])('%s is not', (_name, error) => {
    expect(isRedisUnavailable(error)).toBe(false);
  });
});
