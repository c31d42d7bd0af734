import { RetriableError } from '../../../src/contract/errors';
import pino from 'pino';
import type { BatchConsumer, BatchContext, OutputUnit, TransactionalOutputs } from '../../../src/contract/transport';
import { BatchWorker, type RecordProcessor } from '../../../src/pipeline/batch-worker';

/**
 * The batch loop's exactly-once path over a door that settles when the test says (no Kafka): a batch's slices
 * are given without waiting for each other's transactions, offsets are resolved only once settled and in
 * order, and a failed slice stops the resolving at it.
 */
class ControlledDoor implements TransactionalOutputs {
  readonly units: { unit: OutputUnit; settle: (error?: Error) => void }[] = [];
  inPreparation = 0;
  /** How many were in preparation when each unit was given. */
  readonly preparingAtSend: number[] = [];

  send(unit: OutputUnit): Promise<void> {
    this.preparingAtSend.push(this.inPreparation);
    return new Promise((resolve, reject) => this.units.push({ unit, settle: (error) => (error ? reject(error) : resolve()) }));
  }

  preparing(): () => void {
    this.inPreparation++;
    return () => void this.inPreparation--;
  }

  close = async () => undefined;
}

const echo: RecordProcessor = async (message) => ({ outbound: [{ topic: 'replies', key: message.key, value: message.value, headers: {} }], outcome: 'Success' });

function payloadOf(offsets: string[], committed: string[], released: string[] = []): BatchContext {
  const messages = offsets.map((offset) => ({ offset, key: Buffer.from(`k${offset}`), value: Buffer.from(offset), headers: {}, timestamp: '0' }));
  return {
    batch: { topic: 'commands', partition: 0, messages },
    resolveOffset: () => undefined,
    resolveCommitted: (offset: string) => void committed.push(offset),
    uncommittedOffsets: () => ({ topics: [] }),
    commitOffsetsIfNecessary: async () => undefined,
    heartbeat: async () => undefined,
    isRunning: () => true,
    isStale: () => false,
    release: () => void released.push(`released after ${committed.length} settled`),
    generation: { groupId: 'g', memberId: 'm', generationId: 1 },
  };
}

async function workerOn(
  door: ControlledDoor,
  processor: RecordProcessor = echo,
  replicated?: () => Promise<void>,
  sliceScope?: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<(payload: BatchContext) => Promise<void>> {
  let eachBatch: ((payload: BatchContext) => Promise<void>) | undefined;
  const consumer = {
    run: async (options: { eachBatch: (payload: BatchContext) => Promise<void> }) => void (eachBatch = options.eachBatch),
    pause: () => undefined,
    resume: () => undefined,
    disconnect: async () => undefined,
  } as unknown as BatchConsumer;
  const worker = new BatchWorker({
    consumer,
    sender: { send: async () => [] },
    transactions: door,
    ...(replicated ? { replicated } : {}),
    ...(sliceScope ? { sliceScope } : {}),
    processors: new Map([['commands', processor]]),
    concurrency: 4,
    sliceRecords: 2,
    partitionsConsumedConcurrently: 1,
    log: pino({ level: 'silent' }),
    deadLetter: () => [],
    undeliverable: (refused) => refused,
  });
  await worker.run();
  return eachBatch!;
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
};

describe('batch loop, exactly once: slices pipelined through the door', () => {
  it("gives every slice before the first one's transaction settles, announcing each, and resolves offsets once settled, in order", async () => {
    const door = new ControlledDoor();
    const committed: string[] = [];
    const released: string[] = [];
    const batch = (await workerOn(door))(payloadOf(['0', '1', '2', '3', '4'], committed, released));
    await until(() => door.units.length === 3);
    // every record given: the partition's next batch may begin before these settle
    expect(released).toEqual(['released after 0 settled']);
    expect(door.units.map(({ unit }) => `${unit.offsets!.first}-${unit.offsets!.offset}`)).toEqual(['0-1', '2-3', '4-4']);
    // each slice was given while it was still announced (the open transaction waits for it)
    expect(door.preparingAtSend).toEqual([1, 1, 1]);
    expect(door.inPreparation).toBe(0);
    expect(committed).toEqual([]);
    door.units[1].settle();
    door.units[0].settle();
    await until(() => committed.length === 2);
    expect(committed).toEqual(['1', '3']);
    door.units[2].settle();
    await batch;
    expect(committed).toEqual(['1', '3', '4']);
  });

  it('a failed slice stops the resolving at it: the batch fails, and what came after it is not resolved even if it settled', async () => {
    const door = new ControlledDoor();
    const committed: string[] = [];
    const batch = (await workerOn(door))(payloadOf(['0', '1', '2', '3', '4'], committed));
    await until(() => door.units.length === 3);
    door.units[0].settle();
    door.units[1].settle(new Error('transaction aborted'));
    door.units[2].settle();
    await expect(batch).rejects.toThrow('transaction aborted');
    expect(committed).toEqual(['1']);
  });

  it('no slice is given after one failed: processing stops there', async () => {
    const door = new ControlledDoor();
    const committed: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // the second slice's records wait for the gate, so the first slice's failure comes while it is processed
    const slow: RecordProcessor = async (message, position) => {
      if (Number(message.offset) >= 2) await gate;
      return echo(message, position);
    };
    const eachBatch = await workerOn(door, slow);
    const released: string[] = [];
    const batch = eachBatch(payloadOf(['0', '1', '2', '3', '4'], committed, released));
    await until(() => door.units.length === 1);
    door.units[0].settle(new Error('transaction aborted'));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(batch).rejects.toThrow('transaction aborted');
    expect(door.units).toHaveLength(1);
    expect(committed).toEqual([]);
    expect(released).toEqual([]); // the rest was never given: the partition waits for it to come again
  });

  it('a slice that cannot go out (Redis short of replicas): the slices given before still settle and are resolved, then the batch fails', async () => {
    const door = new ControlledDoor();
    const committed: string[] = [];
    let waits = 0;
    const replicated = async () => {
      if (++waits === 2) throw new Error('1 of 1 replicas acknowledged nothing');
    };
    const batch = (await workerOn(door, echo, replicated))(payloadOf(['0', '1', '2', '3', '4'], committed));
    await until(() => door.units.length === 1);
    door.units[0].settle();
    await expect(batch).rejects.toThrow('replicas acknowledged nothing');
    expect(door.units).toHaveLength(1);
    expect(committed).toEqual(['1']);
  });

  it('a slice whose scope fails after its records and WAIT (its Redis connection was lost) gives nothing to the door', async () => {
    const door = new ControlledDoor();
    const committed: string[] = [];
    const inScope: string[] = [];
    let scope: string | undefined;
    let slices = 0;
    const replicated = async () => void inScope.push(`WAIT in ${scope}`);
    const sliceScope = async <T>(work: () => Promise<T>): Promise<T> => {
      scope = `slice ${++slices}`;
      const result = await work();
      scope = undefined;
      if (slices === 2) throw new RetriableError('Redis connection lost during the slice');
      return result;
    };
    const batch = (await workerOn(door, echo, replicated, sliceScope))(payloadOf(['0', '1', '2', '3', '4'], committed));
    await until(() => door.units.length === 1);
    door.units[0].settle();
    await expect(batch).rejects.toThrow('Redis connection lost during the slice');
    expect(inScope).toEqual(['WAIT in slice 1', 'WAIT in slice 2']);
    expect(door.units).toHaveLength(1); // slice 2 (records 2 and 3) never went out
    expect(committed).toEqual(['1']);
  });
});
