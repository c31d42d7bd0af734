import type { Redis, Cluster } from 'ioredis';
import { inSpan, SpanKind } from '../../shared/tracing';

/**
 * Where Redis call durations are reported (the metrics), registered per client so two services in one
 * process (tests) never mix their numbers. The seams that report are runScript (every store's atomic
 * steps) and the pipelined reads; a client without an observer pays nothing.
 */
export type RedisCallObserver = (operation: string, durationMs: number, failed: boolean) => void;

const observers = new WeakMap<Redis | Cluster, RedisCallObserver>();

export function observeRedisCalls(client: Redis | Cluster, observer: RedisCallObserver): void {
  observers.set(client, observer);
}

/** Runs one Redis call, reporting its duration to the client's observer when it has one. */
export function timedRedisCall<T>(client: Redis | Cluster, operation: string, call: () => Promise<T>): Promise<T> {
  return inSpan(`redis ${operation}`, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis', 'db.operation.name': operation } }, () => observedCall(client, operation, call));
}

async function observedCall<T>(client: Redis | Cluster, operation: string, call: () => Promise<T>): Promise<T> {
  const observer = observers.get(client);
  if (!observer) return call();
  const started = performance.now();
  try {
    const result = await call();
    observer(operation, performance.now() - started, false);
    return result;
  } catch (error) {
    observer(operation, performance.now() - started, true);
    throw error;
  }
}
