import fc from 'fast-check';

/**
 * kafkajs's produce request and framing as loaded in the calling module registry (patched or not), and a
 * property that two such copies frame the same bytes for any produce request: how the kafkajs encoding
 * patches (src/adapters/kafka/pooled-encoder.ts, record-encoder.ts) are held to kafkajs's own.
 */
interface Encoded {
  buffer: Buffer;
}
interface Request {
  encode(): Promise<Encoded>;
}
export interface ProduceModules {
  produce: (args: { acks: number; timeout: number; compression?: number; topicData: unknown[] }) => Request;
  frame: (args: { correlationId: number; clientId: string; request: Request }) => Promise<Encoded>;
}

export const produceModules = (): ProduceModules => ({
  produce: require('kafkajs/src/protocol/requests/produce/v3/request'),
  frame: require('kafkajs/src/protocol/request'),
});

const message = fc.record({
  key: fc.string({ maxLength: 20 }),
  value: fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)),
  headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 16 }), fc.string({ maxLength: 60 }), { maxKeys: 4 }),
  timestamp: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
});

/** Asserts that `patched` frames every drawn produce request (record batches and headers included) as `stock` does. */
export async function assertSameProduceRequests(patched: ProduceModules, stock: ProduceModules): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(message, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }), async (partitions) => {
      const topicData = [{ topic: 'replies', partitions: partitions.map((messages, partition) => ({ partition, firstSequence: 0, messages })) }];
      const encode = async ({ produce, frame }: ProduceModules) => (await frame({ correlationId: 42, clientId: 'test', request: produce({ acks: -1, timeout: 30_000, topicData }) })).buffer;
      expect((await encode(patched)).equals(await encode(stock))).toBe(true);
    }),
    { numRuns: 60 },
  );
}
