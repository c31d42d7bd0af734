/**
 * kafkajs 2.2.4 can spin a core for ever once a consumer is stopped. When a broker leaves the metadata,
 * its fetch manager stops its fetchers and creates new ones (KafkaJSFetcherRebalanceError) without asking
 * whether the consumer still runs. A stop() that lands in between stops the old fetchers only. The new
 * ones call the runner's fetch, which answers [] at once when the runner is stopped, and they loop on
 * that answer with no I/O: microtasks only, so no timer fires again and the process can neither time out
 * nor exit. The fault suite hung this way, at 100 % CPU, in kafka-outage's coordinator run (the test
 * process's client consumers, after the broker was killed). The same family as tulios/kafkajs#1384 and
 * #1387, which 2.1 fixed only for the case with no broker left.
 *
 * Here a stopped runner's fetch also stops the fetch manager's current fetchers, so each one ends its
 * loop after that answer, and the fetch manager returns as if stopped in time. Any other empty answer
 * (a long poll that timed out, a fetch error kafkajs recovered from) is followed by one turn of the event
 * loop, so no other path of that family can starve the timers either.
 */

/** The parts of kafkajs's Runner this file touches. */
export interface FetchingRunner {
  running: boolean;
  fetchManager: { stop(): Promise<void> };
  fetch(nodeId: number): Promise<unknown[]>;
}

const INSTALLED = Symbol.for('wholesale.stoppedFetchGuard');

/** Patches kafkajs's consumer runner once per process; later calls do nothing. */
export function installStoppedFetchGuard(): void {
  // kafkajs's internals have no typed entry point; this is the module instance kafkajs itself loads
  const runner = (require('kafkajs/src/consumer/runner') as { prototype?: Partial<FetchingRunner> & { [INSTALLED]?: true } }).prototype;
  if (typeof runner?.fetch !== 'function') throw new Error('kafkajs internals changed: its consumer runner has no fetch(); see src/adapters/kafka/stopped-fetch-guard.ts');
  if (runner[INSTALLED]) return;
  const fetch = runner.fetch;
  runner.fetch = async function fetchUnlessStopped(this: FetchingRunner, nodeId: number) {
    if (this.running) {
      const batches = await fetch.call(this, nodeId);
      if (batches.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      return batches;
    }
    // not awaited: the fetcher calling this ends its loop only once this returns, and stop() waits for that
    this.fetchManager.stop().catch(() => undefined);
    return [];
  };
  runner[INSTALLED] = true;
}
