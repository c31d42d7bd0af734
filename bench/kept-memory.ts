import type { MemorySnapshot } from './redis-probe';

/** What a measured window left in Redis, in bytes, and how `kept` was told apart from the rest. */
export interface KeptMemory {
  /** used_memory's growth over the window, as it is. */
  usedGrowth: number;
  /** Growth of the client and AOF buffers: commands in flight at the two samples, not data kept. */
  transient: number;
  /** Growth of the keyspace's hash tables, main and expires: their entries, and a whole doubling in some windows. */
  hashTableGrowth: number;
  /** The new keys' share of the hash tables, each table's bytes per key at the window's end. */
  hashTableShare: number;
  keysAdded: number;
  /**
   * The data's growth, with the new keys' share of the hash tables in place of the step the tables took
   * in this window: a doubling falls in one short window and not in the next, and moved the figure by
   * tens of bytes per command between runs.
   */
  kept: number;
}

const perKey = ({ bytes, keys }: { bytes: number; keys: number }) => (keys > 0 ? bytes / keys : 0);

export function keptMemory(before: MemorySnapshot, after: MemorySnapshot): KeptMemory {
  const usedGrowth = after.used - before.used;
  const transient = after.transient - before.transient;
  const hashTableGrowth = after.main.bytes - before.main.bytes + (after.expires.bytes - before.expires.bytes);
  const keysAdded = after.main.keys - before.main.keys;
  const hashTableShare = keysAdded * perKey(after.main) + (after.expires.keys - before.expires.keys) * perKey(after.expires);
  return { usedGrowth, transient, hashTableGrowth, hashTableShare, keysAdded, kept: usedGrowth - transient - hashTableGrowth + hashTableShare };
}

/** The same, per command of the window. */
export type KeptMemoryPerCommand = Omit<KeptMemory, 'kept'>;
