import { installStoppedFetchGuard, type FetchingRunner } from '../../../src/adapters/kafka/stopped-fetch-guard';

/**
 * kafkajs's own fetch manager and runner method, in the state the race leaves them: the runner stopped,
 * the fetch manager starting the fetchers it re-created after a broker left. Unguarded, its fetcher loops
 * on the runner's empty answer with no I/O for ever; here that loop is cut after SPIN_LIMIT calls so the
 * unguarded case fails instead of hanging the test process.
 */
type FetchManagerFactory = (options: {
  logger: unknown;
  getNodeIds: () => number[];
  fetch: (nodeId: number) => Promise<unknown[]>;
  handler: (batch: unknown) => Promise<void>;
  concurrency: number;
}) => { start(): Promise<void>; stop(): Promise<void> };

const createFetchManager = require('kafkajs/src/consumer/fetchManager') as FetchManagerFactory;
const Runner = require('kafkajs/src/consumer/runner') as { prototype: FetchingRunner };

const SPIN_LIMIT = 1_000;
const quiet: Record<string, unknown> = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
quiet.namespace = () => quiet;

function stoppedRunner() {
  const runner = Object.assign(Object.create(Runner.prototype) as FetchingRunner, { running: false, logger: quiet, consumerGroup: { groupId: 'g', memberId: 'm' } });
  let calls = 0;
  const fetchManager = createFetchManager({
    logger: quiet,
    getNodeIds: () => [1, 2],
    handler: async () => undefined,
    concurrency: 1,
    fetch: async (nodeId) => {
      if (++calls > SPIN_LIMIT) throw new Error(`still fetching after ${SPIN_LIMIT} calls: the fetchers spin`);
      return runner.fetch(nodeId);
    },
  });
  runner.fetchManager = fetchManager;
  return { fetchManager, calls: () => calls };
}

/** A running runner whose consumer group answers `batches`. */
const runningRunner = (batches: unknown[]) =>
  Object.assign(Object.create(Runner.prototype) as FetchingRunner, {
    running: true,
    fetchManager: { stop: jest.fn(async () => undefined) },
    consumerGroup: { fetch: async () => batches },
    instrumentationEmitter: { emit: () => undefined },
    heartbeat: async () => undefined,
    logger: quiet,
  });

describe('installStoppedFetchGuard', () => {
  beforeAll(() => installStoppedFetchGuard());

  it('ends the fetchers of a stopped consumer after one empty answer each, instead of letting them spin', async () => {
    const { fetchManager, calls } = stoppedRunner();
    await expect(fetchManager.start()).resolves.toBeUndefined();
    expect(calls()).toBe(2); // one per fetcher (node 1, node 2)
  });

  it('leaves a running consumer to kafkajs: its fetch goes to the original method', async () => {
    const runner = runningRunner(['batch']);
    await expect(runner.fetch(1)).resolves.toEqual(['batch']);
    expect(runner.fetchManager.stop).not.toHaveBeenCalled();
  });

  it('lets the event loop turn after an empty answer of a running consumer, so a timer set before it fires first', async () => {
    const runner = runningRunner([]);
    const order: string[] = [];
    setImmediate(() => order.push('event loop'));
    await runner.fetch(1).then(() => order.push('fetch answered'));
    expect(order).toEqual(['event loop', 'fetch answered']);
  });

  it('installs once: a second call keeps the one guard', () => {
    const guarded = Runner.prototype.fetch;
    installStoppedFetchGuard();
    expect(Runner.prototype.fetch).toBe(guarded);
  });
});
