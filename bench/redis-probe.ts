import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';

/**
 * What Redis says about the run: commands executed (INFO commandstats, which counts the commands a Lua
 * script runs as well as the script call itself), the round trips clients made (a MONITOR sample tells
 * a client's commands from those run inside scripts), memory (INFO memory), and the floor of Redis
 * itself (redis-benchmark).
 */
export type CommandStats = Record<string, { calls: number; usec: number }>;

export async function commandStats(redis: Redis): Promise<CommandStats> {
  const info = await redis.info('commandstats');
  const stats: CommandStats = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats[match[1]] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return stats;
}

/** Calls and Redis CPU time per command between two snapshots, leaving out the bench's own INFO/MONITOR. */
export function statsDelta(before: CommandStats, after: CommandStats): { calls: Record<string, number>; totalCalls: number; usec: number } {
  const calls: Record<string, number> = {};
  let totalCalls = 0;
  let usec = 0;
  for (const [name, now] of Object.entries(after)) {
    if (name === 'info' || name === 'monitor') continue;
    const delta = now.calls - (before[name]?.calls ?? 0);
    if (delta <= 0) continue;
    calls[name] = delta;
    totalCalls += delta;
    usec += now.usec - (before[name]?.usec ?? 0);
  }
  return { calls, totalCalls, usec };
}

/**
 * With appendonly (the stack's Redis runs as production should), a bulk load grows the AOF until Redis
 * rewrites it: a fork of the whole dataset (measured 26 ms stall at 1.8 GB) and a child writing it all,
 * on the same two cores. After seeding, the rewrite is done and waited for, so the seeding's rewrites do
 * not land in a measured phase; those the workload itself causes still do, as they would in production.
 */
export async function compactAppendOnlyFile(redis: Redis, timeoutMs = 300_000): Promise<boolean> {
  const persistence = async () => redis.info('persistence');
  if (!/^aof_enabled:1/m.test(await persistence())) return false;
  const idle = (info: string) => /^aof_rewrite_in_progress:0/m.test(info) && /^aof_rewrite_scheduled:0/m.test(info);
  const deadline = Date.now() + timeoutMs;
  while (!idle(await persistence())) await new Promise((resolve) => setTimeout(resolve, 200));
  await redis.bgrewriteaof();
  do {
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (Date.now() > deadline) throw new Error(`the AOF rewrite did not finish in ${timeoutMs} ms`);
  } while (!idle(await persistence()));
  // The rewrite left the new file's pages dirty; written back now, not during the next measured phase.
  spawnSync('sync');
  return true;
}

/** Forks so far (AOF rewrites and snapshots): each stalls Redis for the fork and shares the cores with its child. */
export async function totalForks(redis: Redis): Promise<number> {
  return Number(/^total_forks:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? NaN);
}

/**
 * used_memory and the parts of it that are not what the data keeps: the clients' query and output buffers
 * and the AOF buffer (gone once the commands in flight are answered and the second's writes flushed), and
 * the keyspace's two hash tables, main and expires (a 24-byte entry per key and 8 bytes a slot; the slots
 * double in one step when the keys reach the table's size). `MEMORY STATS` and `INFO keyspace` give them.
 */
export interface MemorySnapshot {
  used: number;
  /** Client buffers and the AOF buffer. */
  transient: number;
  /** The main hash tables' bytes (entries and slots), every database, and their keys. */
  main: { bytes: number; keys: number };
  /** The expires hash tables' bytes, and the keys with an expiry. */
  expires: { bytes: number; keys: number };
}

export async function memorySnapshot(redis: Redis): Promise<MemorySnapshot> {
  const [flat, keyspace] = await Promise.all([redis.call('MEMORY', 'STATS') as Promise<unknown[]>, redis.info('keyspace')]);
  const stats = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) stats.set(String(flat[i]), flat[i + 1]);
  const number = (name: string) => Number(stats.get(name) ?? 0);
  const main = { bytes: 0, keys: 0 };
  const expires = { bytes: 0, keys: 0 };
  for (const [name, value] of stats) {
    if (!/^db\.\d+$/.test(name) || !Array.isArray(value)) continue;
    for (let i = 0; i + 1 < value.length; i += 2) {
      if (value[i] === 'overhead.hashtable.main') main.bytes += Number(value[i + 1]);
      if (value[i] === 'overhead.hashtable.expires') expires.bytes += Number(value[i + 1]);
    }
  }
  for (const [, keys, expiring] of keyspace.matchAll(/^db\d+:keys=(\d+),expires=(\d+)/gm)) {
    main.keys += Number(keys);
    expires.keys += Number(expiring);
  }
  return { used: number('total.allocated'), transient: number('clients.normal') + number('aof.buffer'), main, expires };
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN);
}

export interface MonitorSample {
  /** Commands clients sent that each began a round trip, by name. */
  client: Record<string, number>;
  /**
   * Client commands that travelled in the same write as the command before them, for the same service
   * command: a read's HGETALL right behind its HMGET or HGET of the same number (QueryBalances,
   * CheckPortInEligibility; test/integration/redis-reads.test.ts shows them one read). Not round trips.
   */
  pipelined: Record<string, number>;
  /** Commands Lua scripts ran, by name. */
  lua: Record<string, number>;
}

/** The `{gpsi}` hash tag of a key, or the key. */
const tagOf = (key: string | undefined) => /\{[^}]*\}/.exec(key ?? '')?.[0] ?? key;

/** A MONITOR line's time, source (`lua` or the client's address) and arguments (as Redis quotes them). */
export function parseMonitorLine(line: string): { source: string; args: string[] } | undefined {
  const head = /^\+[\d.]+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return undefined;
  const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
  return { source: head[1], args };
}

/**
 * Records every command Redis runs until `stop()`; sources tell client commands from script ones. Redis runs
 * the commands of one read of a client's socket back to back, so a pipelined pair is adjacent in MONITOR.
 * Read from a plain socket: ioredis's monitor() fails now and then under load with "Command queue state
 * error" when MONITOR's OK and the first lines arrive in one read, before it has switched to monitoring
 * (the same as taskforcesh/bullmq#2505), which ended a whole benchmark run.
 */
export async function startMonitor(url: string): Promise<{ stop(): Promise<MonitorSample> }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port || 6379) });
  await once(socket, 'connect');
  // A socket error with no listener would end the whole run; a lost sample shows as a failed stop() instead.
  let failure: Error | undefined;
  socket.on('error', (error) => (failure = error));
  socket.write('MONITOR\r\n');
  const sample: MonitorSample = { client: {}, pipelined: {}, lua: {} };
  let previous: { name: string; source: string; tag?: string } | undefined;
  const count = (source: string, args: string[]) => {
    const name = String(args[0] ?? '').toLowerCase();
    if (name === 'info' || name === 'monitor') return;
    const tag = tagOf(args[1]);
    const companion = source !== 'lua' && name === 'hgetall' && previous?.source === source && (previous.name === 'hmget' || previous.name === 'hget') && previous.tag === tag;
    const bucket = source === 'lua' ? sample.lua : companion ? sample.pipelined : sample.client;
    bucket[name] = (bucket[name] ?? 0) + 1;
    previous = { name, source, tag };
  };
  let pending = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\r\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const parsed = parseMonitorLine(line);
      if (parsed) count(parsed.source, parsed.args);
    }
  });
  return {
    async stop() {
      socket.destroy();
      if (failure) throw new Error(`the MONITOR sample was cut short: ${failure.message}`);
      return sample;
    },
  };
}

/**
 * The mean Redis memory (MEMORY USAGE: value, key, expiry and allocator overhead) of up to `sample` keys
 * matching `pattern`, found by SCAN, and how many were seen; undefined when none.
 */
export async function sampledKeyBytes(redis: Redis, pattern: string, sample = 400): Promise<{ keys: number; meanBytes: number } | undefined> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0' && keys.length < sample);
  if (keys.length === 0) return undefined;
  const chosen = keys.slice(0, sample);
  const bytes = await Promise.all(chosen.map((key) => redis.memory('USAGE', key, 'SAMPLES', 0)));
  return { keys: chosen.length, meanBytes: bytes.reduce<number>((sum, b) => sum + Number(b ?? 0), 0) / chosen.length };
}

/** redis-benchmark (installed with redis-server): requests/s of plain commands, pipelined or not. */
export function redisBenchmark(host: string, port: number, options: { requests: number; clients: number; pipeline: number; tests: string }): Record<string, number> | undefined {
  const run = spawnSync(
    'redis-benchmark',
    ['-h', host, '-p', String(port), '-n', String(options.requests), '-c', String(options.clients), '-P', String(options.pipeline), '-t', options.tests, '--csv'],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (run.status !== 0) return undefined;
  const result: Record<string, number> = {};
  for (const line of run.stdout.split('\n')) {
    const match = /^"([^"]+)","([\d.]+)"/.exec(line);
    if (match) result[match[1]] = Number(match[2]);
  }
  return result;
}
