import type { Consumer } from '@platformatic/kafka';
import { boundedCodecsInPlace } from './bounded-codecs';
import { batchRefusalIn, type BatchRefused } from './refused-batch';

/**
 * Where the batch lies whose refusal killed a consumer's stream. A refused batch (bounded-codecs.ts) fails
 * the whole fetch, every partition of it, and its error names neither partition nor offsets — the codec
 * sees only the compressed bytes. So each partition the stream was consuming is probed, at the offset it
 * would fetch next, with fetches of one batch each (a partition's first batch comes whole even beyond the
 * fetch's byte limits): the culprit is the partition whose probe is refused with the same fingerprint, and
 * the batch begins at that offset. Its last offset cannot be read (the probe's decoding throws before it
 * returns the batch), so it is searched for: a probe at any offset inside the batch returns the whole batch
 * (Kafka does not split batches), so "a probe at x is refused with the same fingerprint" holds from the
 * first offset to the last and not at the next batch. Galloping (first + 1, + 2, + 4, …) bounds it, a
 * binary search finds it; the partition's end offset is the upper bound (a probe there returns no batch).
 * About 2 × log2 of the distance probes, each one round trip.
 *
 * The one limit: the fingerprint names the compressed bytes, not the batch, so two byte-identical refused
 * batches (the same producer resending the same bomb) with other batches between them can be taken for one
 * batch spanning everything between; each probe after the first batch that lands in the second is refused
 * alike. The placeholder then covers the batches between, which are skipped with them.
 */
export interface RefusalCandidate {
  topic: string;
  partition: number;
  /** The next offset the stream would have fetched on this partition. */
  offset: bigint;
}

export interface LocatedRefusal {
  topic: string;
  partition: number;
  first: bigint;
  last: bigint;
}

/** What one call cost, for the logs: probes made and time taken. */
export interface LocatorCost {
  probes: number;
  ms: number;
}

/** The probes allowed to search a range of `span` offsets: galloping and bisecting, each at most ⌈log2⌉ + 1. */
export const probeBudget = (span: bigint): number => 2 * (span.toString(2).length + 1);

export async function locateRefusedBatch(
  consumer: Consumer,
  candidates: readonly RefusalCandidate[],
  refusal: BatchRefused,
  cost: LocatorCost = { probes: 0, ms: 0 },
): Promise<LocatedRefusal | undefined> {
  // a probe through unbounded codecs would inflate the very batch that was refused
  if (!boundedCodecsInPlace()) throw new Error('the bounded codecs are not in place: probing a refused batch would inflate it');
  const began = Date.now();
  try {
    const topics = [...new Set(candidates.map((c) => c.topic))];
    if (topics.length === 0) return undefined;
    const [metadata, ends] = await Promise.all([consumer.metadata({ topics }), consumer.listOffsets({ topics })]);

    for (const candidate of candidates) {
      const topic = metadata.topics.get(candidate.topic);
      const leader = topic?.partitions[candidate.partition]?.leader;
      const end = ends.get(candidate.topic)?.[candidate.partition];
      if (topic === undefined || leader === undefined || end === undefined) continue;
      const refusedAt = async (offset: bigint): Promise<boolean> => {
        if (offset >= end) return false;
        cost.probes++;
        try {
          await consumer.fetch({
            node: leader,
            topics: [{ topicId: topic.id, partitions: [{ partition: candidate.partition, fetchOffset: offset, partitionMaxBytes: 1, currentLeaderEpoch: -1, lastFetchedEpoch: -1 }] }],
            maxWaitTime: 0,
            minBytes: 0,
            maxBytes: 1,
          });
          return false;
        } catch (error) {
          const refused = batchRefusalIn(error);
          if (refused === undefined) throw error;
          return refused.fingerprint === refusal.fingerprint;
        }
      };
      if (!(await refusedAt(candidate.offset))) continue;
      const budget = probeBudget(end - candidate.offset) + cost.probes;
      const last = await lastRefused(candidate.offset, end, async (offset) => {
        if (cost.probes >= budget) throw new Error(`locating a refused batch took more than ${budget} probes`);
        return refusedAt(offset);
      });
      return { topic: candidate.topic, partition: candidate.partition, first: candidate.offset, last };
    }
    return undefined;
  } finally {
    cost.ms += Date.now() - began;
  }
}

/**
 * The last offset x in [first, end) for which `refused(x)` holds, given that it holds at `first`, holds on
 * an interval from there, and does not at `end`.
 */
export async function lastRefused(first: bigint, end: bigint, refused: (offset: bigint) => Promise<boolean>): Promise<bigint> {
  let holds = first; // refused here
  let fails = end; // not refused here
  for (let step = 1n; first + step < end; step *= 2n) {
    if (!(await refused(first + step))) {
      fails = first + step;
      break;
    }
    holds = first + step;
  }
  while (fails - holds > 1n) {
    const middle = holds + (fails - holds) / 2n;
    if (await refused(middle)) holds = middle;
    else fails = middle;
  }
  return holds;
}
