/**
 * Replaces a kafkajs internal module's export where kafkajs's own modules will load it from: Node's module
 * cache. kafkajs binds such functions when the requiring module loads (its request and response modules load
 * lazily, at the first request of their kind), so the replacement must come first: `capturedBy` is the
 * module that binds it. The patches that use this (record-encoder.ts, record-decoder.ts, fetch-messages.ts) are installed from
 * createKafka, before any client of this process sends or fetches.
 */
interface CachedModule {
  exports: unknown;
}

const REPLACED = Symbol.for('wholesale.kafkajsModule');

/**
 * Puts `replace(kafkajs's export)` in place of module `path`; once per process. False when a module of
 * `capturedBy` was loaded already (it keeps kafkajs's own: only slower) or the module system has no writable cache (jest's
 * isolated registries).
 */
export function replaceKafkajsModule<T>(path: string, capturedBy: string | readonly string[], replace: (original: T) => T): boolean {
  const resolved = require.resolve(path);
  const cached = (at: string) => (require.cache as Record<string, CachedModule | undefined>)[at];
  if ((cached(resolved)?.exports as { [REPLACED]?: true } | undefined)?.[REPLACED]) return true;
  if ((typeof capturedBy === 'string' ? [capturedBy] : capturedBy).some((module) => cached(require.resolve(module)))) return false;
  const original = require(path) as T;
  const loaded = cached(resolved);
  if (!loaded) return false;
  loaded.exports = Object.assign(replace(original) as object, { [REPLACED]: true as const });
  return true;
}
