import { isRedisUnavailable } from '../../../src/adapters/redis/client';

/** ioredis's error classes (from redis-errors) are identified by name and message. */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('isRedisUnavailable: Redis away or refusing for a passing reason means retry, not an error reply', () => {
  it.each([
    ['a pipelined command aborted by a closed connection', named('AbortError', 'Command aborted due to connection close')],
    ['max retries per request', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 3).')],
    ['a closed connection', new Error('Connection is closed.')],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:6379')],
    ['Redis loading its data', named('ReplyError', 'LOADING Redis is loading the dataset in memory')],
    ['a command not answered within commandTimeout', new Error('Command timed out')],
    // Redis 7 replies; inside a script it keeps the code and appends where (seen on redis-server 7.0)
    ['Redis out of memory under noeviction', named('ReplyError', "OOM command not allowed when used memory > 'maxmemory'.")],
    ['a script refused out of memory', named('ReplyError', "OOM command not allowed when used memory > 'maxmemory'. script: 5e15, on @user_script:1.")],
    ['a primary turned replica by a failover', named('ReplyError', "READONLY You can't write against a read only replica.")],
    ['a script refused by a replica', named('ReplyError', "READONLY You can't write against a read only replica. script: bd6f, on @user_script:1.")],
    ['a replica without its primary', named('ReplyError', "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")],
    ['a script running too long', named('ReplyError', 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.')],
    ['credentials not accepted yet', named('ReplyError', 'NOAUTH Authentication required.')],
    // a Cluster's slot served elsewhere since a failover: the command did not run; ioredis refreshes its slots
    ['a slot moved by a Cluster failover, in a pipeline', named('ReplyError', 'MOVED 9351 127.0.0.1:22704')],
    ['a slot being migrated', named('ReplyError', 'ASK 9351 127.0.0.1:22704')],
  ])('%s is retriable', (_name, error) => {
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it.each([
    ['a Lua script error', named('ReplyError', 'ERR user_script:12: attempt to compare nil with number')],
    ['a key of the wrong type', named('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['an existing key (not BUSY)', named('ReplyError', 'BUSYKEY Target key name already exists.')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'gpsi')")],
    ['not an error', 'Connection is closed'],
  ])('%s is not', (_name, error) => {
    expect(isRedisUnavailable(error)).toBe(false);
  });
});
