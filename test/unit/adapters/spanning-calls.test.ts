import fc from 'fast-check';
import { packCalls, SpanningCalls, type PartitionRun } from '../../../src/adapters/kafka/spanning-calls';

/** The sends of one turn of the event loop share produce calls, each partition below the batch limit. */
const run = (partition: number, bytes: number, ...keys: string[]): PartitionRun => ({
  key: `${partition}:t`,
  topic: 't',
  messages: keys.map((key) => ({ topic: 't', key, value: null, partition, headers: {} })),
  bytes,
});

describe('packCalls', () => {
  it('keeps every caller once and in order, and no partition of a call over the limit (each run is within it, as the sender sees to)', () => {
    // a caller has one run per partition (byPartition groups them)
    const runs = fc.uniqueArray(fc.record({ partition: fc.nat({ max: 3 }), bytes: fc.integer({ min: 1, max: 1000 }) }), { minLength: 1, maxLength: 4, selector: (r) => r.partition });
    const callers = fc.array(runs, { maxLength: 30 });
    fc.assert(
      fc.property(callers, (shapes) => {
        const input = shapes.map((runs, id) => ({ id, runs: runs.map((r) => run(r.partition, r.bytes)) }));
        const calls = packCalls(input, 1000);
        expect(calls.flat().map((c) => c.id)).toEqual(input.map((c) => c.id));
        for (const call of calls) {
          const bytes = new Map<string, number>();
          for (const caller of call) for (const r of caller.runs) bytes.set(r.key, (bytes.get(r.key) ?? 0) + r.bytes);
          for (const total of bytes.values()) expect(total).toBeLessThanOrEqual(1000);
        }
      }),
    );
  });

  it('puts small callers together', () => {
    const callers = Array.from({ length: 50 }, (_, i) => ({ runs: [run(i % 4, 100)] }));
    expect(packCalls(callers, 512 * 1024)).toHaveLength(1);
  });
});

describe('SpanningCalls', () => {
  type Sent = { key: string; partition: number }[];

  it('sends what several callers send in one turn as one call, each partition in the callers’ order', async () => {
    const batches: Sent[] = [];
    const calls = new SpanningCalls(async (messages) => void batches.push(messages as Sent), 1000);
    const acknowledged = await Promise.all([calls.trySend([run(0, 10, 'a1', 'a2'), run(1, 10, 'a3')]), calls.trySend([run(0, 10, 'b1')]), calls.trySend([run(1, 10, 'c1')])]);
    expect(acknowledged).toEqual([true, true, true]);
    expect(batches).toHaveLength(1);
    const keys = (partition: number) => batches[0].filter((m) => m.partition === partition).map((m) => m.key);
    expect(keys(0)).toEqual(['a1', 'a2', 'b1']);
    expect(keys(1)).toEqual(['a3', 'c1']);
  });

  it('a failed call fails each of its callers and no other; then none is made for a while, unless the failure was a refusal', async () => {
    const calls_: string[][] = [];
    let failure: Error | undefined;
    const calls = new SpanningCalls(async (messages) => {
      const keys = (messages as Sent).map((m) => m.key);
      calls_.push(keys);
      if (keys.includes('bad')) throw failure!;
    }, 1000);
    const tooLarge = Object.assign(new Error('Request failed'), { cause: Object.assign(new Error('too large'), { apiId: 'MESSAGE_TOO_LARGE' }) });
    failure = tooLarge;
    expect(await Promise.all([calls.trySend([run(0, 600, 'bad')]), calls.trySend([run(1, 10, 'with-bad')]), calls.trySend([run(0, 600, 'next-call')])])).toEqual([false, false, true]);
    expect(await calls.trySend([run(0, 10, 'after-a-refusal')])).toBe(true);
    failure = Object.assign(new Error('Connection error'), { code: 'PLT_KFK_NETWORK' });
    expect(await calls.trySend([run(0, 10, 'bad')])).toBe(false);
    const made = calls_.length;
    expect(await calls.trySend([run(0, 10, 'after-the-cluster-failed')])).toBe(false);
    expect(calls_).toHaveLength(made); // not even tried
  });
});
