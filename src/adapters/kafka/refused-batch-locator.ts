import { IS_CONTROL, type Consumer, type RecordsBatch } from '@platformatic/kafka';
import type { InboundRecord, RecordHeaders } from '../../contract/transport';
import { boundedCodecsInPlace } from './bounded-codecs';
import { batchRefusalIn, type BatchRefused } from './refused-batch';

/**
 * Where the batch lies whose refusal killed a consumer's stream. A refused batch (bounded-codecs.ts) fails
 * the whole fetch — every partition of it, and the good batches before it in the same response, which are
 * never delivered — and its error names neither partition nor offsets: the codec sees only the compressed
 * bytes. So each partition the stream was consuming is probed from the offset it would fetch next, with
 * fetches through the same (bounded) codec table, until a probe is refused with the same fingerprint:
 *
 * - the first offset: the refused batch lies within the bytes the stream fetched for its partition
 *   (`maxBytesPerPartition` from the next offset; a partial batch at the end of a response is never
 *   decoded). The probes walk forward over good batches in windows that double after a probe that decoded
 *   (the next probe starts after its last batch) and halve after one refused with the fingerprint; a refusal
 *   with a window of one batch (a partition's first batch comes whole even beyond the byte limits) puts the
 *   batch at that offset. A probe refused with another fingerprint means another refused batch comes first
 *   on that partition: not the culprit. Past the bytes the stream fetched, or at the end, not the culprit.
 *   The records of the good batches walked over are returned (`before`): the failed fetch never delivered
 *   them, and the stream goes on after the refused batch, so they must be handed on before its placeholder.
 * - the last offset cannot be read (the probe's decoding throws before it returns the batch), so it is
 *   searched for: a one-batch probe at any offset inside the batch returns the whole batch (Kafka does not
 *   split batches), so "a probe at x is refused with the same fingerprint" holds from the first offset to
 *   the last and not at the next batch. Galloping (first + 1, + 2, + 4, …) bounds it, a binary search finds
 *   it; the partition's end offset is the upper bound (a probe there returns no batch).
 *
 * Each search is about 2 × log2 of its distance probes, one round trip each, and is stopped beyond twice
 * that. The probes are the consumer's public `fetch`, so they share its fetch session with the broker: a
 * probe refused after one that decoded leaves the session an epoch behind, and the next probe is answered
 * INVALID_FETCH_SESSION_EPOCH and retried by the client once, after its retry delay (once per location in
 * the integration test: 5 probes in ≈ 0.3 s for a bomb, 34 in ≈ 0.5 s for a batch of 50,000 records). The one limit: the fingerprint names the compressed bytes, not the batch, so two byte-identical
 * refused batches (the same producer resending the same bomb) with other batches between them can be taken
 * for one batch spanning everything between; the placeholder then covers the batches between, which are
 * skipped with them. And on a compacted partition the first offset may name offsets before the batch that
 * no longer exist.
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
  /** The records from the candidate's offset to the refused batch, in order (what the failed fetch held before it). */
  before: InboundRecord[];
}

/** What one call cost, for the logs: probes made and time taken. */
export interface LocatorCost {
  probes: number;
  ms: number;
}

export interface LocatorOptions {
  /** The stream's maxBytesPerPartition: how far past its next offset it fetched (the client's default: 50 MiB). */
  maxBytesPerPartition?: number;
  /** Told what the call cost. */
  cost?: LocatorCost;
}

const CLIENT_DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
/** A batch's bytes before its `length` field counts: base offset and length. */
const BATCH_LOG_OVERHEAD = 12;

/** The probes allowed to search a range of `span` (offsets or bytes): galloping and bisecting, each at most ⌈log2⌉ + 1. */
export const probeBudget = (span: bigint): number => 2 * (span.toString(2).length + 1);

/** What a probe found: our refused batch, another refused batch, or decoded batches up to `next` (none at the end). */
export type Probe = { refused: 'ours' | 'other' } | { decoded: { next: bigint; bytes: number } | undefined };

export async function locateRefusedBatch(
  consumer: Consumer,
  candidates: readonly RefusalCandidate[],
  refusal: BatchRefused,
  { maxBytesPerPartition = CLIENT_DEFAULT_MAX_BYTES, cost = { probes: 0, ms: 0 } }: LocatorOptions = {},
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
      let budget = 0;
      /** The batches decoded while walking to the refused batch: contiguous from the candidate's offset. */
      let walked: RecordsBatch[] | undefined = [];
      const probe = async (offset: bigint, windowBytes: number): Promise<Probe> => {
        if (offset >= end) return { decoded: undefined };
        if (--budget < 0) throw new Error(`locating a refused batch on ${candidate.topic}/${candidate.partition} took too many probes`);
        cost.probes++;
        try {
          const response = await consumer.fetch({
            node: leader,
            topics: [{ topicId: topic.id, partitions: [{ partition: candidate.partition, fetchOffset: offset, partitionMaxBytes: windowBytes, currentLeaderEpoch: -1, lastFetchedEpoch: -1 }] }],
            maxWaitTime: 0,
            minBytes: 0,
            maxBytes: windowBytes,
          });
          const batches = response.responses[0]?.partitions[0]?.records ?? [];
          const lastBatch = batches.at(-1);
          if (lastBatch === undefined) return { decoded: undefined };
          for (const batch of batches) walked?.push(batch);
          const bytes = batches.reduce((sum, batch) => sum + batch.length + BATCH_LOG_OVERHEAD, 0);
          return { decoded: { next: lastBatch.firstOffset + BigInt(lastBatch.lastOffsetDelta) + 1n, bytes } };
        } catch (error) {
          const refused = batchRefusalIn(error);
          if (refused === undefined) throw error;
          return { refused: refused.fingerprint === refusal.fingerprint ? 'ours' : 'other' };
        }
      };

      budget = 2 * probeBudget(BigInt(maxBytesPerPartition));
      const first = await firstRefused(candidate.offset, maxBytesPerPartition, probe);
      if (first === undefined) continue;
      const before = recordsOf(walked, candidate.offset);
      walked = undefined;
      budget = probeBudget(end - first);
      const last = await lastRefused(first, end, async (offset) => {
        const found = await probe(offset, 1);
        return 'refused' in found && found.refused === 'ours';
      });
      return { topic: candidate.topic, partition: candidate.partition, first, last, before };
    }
    return undefined;
  } finally {
    cost.ms += Date.now() - began;
  }
}

/**
 * The records of fetched batches from offset `from`, as the consumer's stream delivers them: control
 * batches left out, and a header set twice keeps every value in order (as inbound-record.ts does).
 */
function recordsOf(batches: RecordsBatch[], from: bigint): InboundRecord[] {
  const records: InboundRecord[] = [];
  for (const batch of batches) {
    if (batch.attributes & IS_CONTROL) continue;
    for (const record of batch.records) {
      const offset = batch.firstOffset + BigInt(record.offsetDelta);
      if (offset < from) continue;
      const headers: RecordHeaders = {};
      for (const [rawName, value] of record.headers) {
        if (rawName === null || value === null) continue;
        const name = rawName.toString();
        const seen = headers[name];
        headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
      }
      records.push({ key: record.key, value: record.value, headers, offset: offset.toString(), timestamp: (batch.firstTimestamp + record.timestampDelta).toString() });
    }
  }
  return records;
}

/**
 * The offset from which a one-batch probe is refused with our fingerprint, walking from `from` over good
 * batches within `maxBytes`: windows double after a decoded probe until one is refused; from then on the
 * batch is known to lie within the bytes that window had left, and each probe halves them (a bisection
 * over bytes). After a refused window, a one-batch probe first asks whether the batch is the very next
 * (a bomb larger than the window would otherwise cost a probe per halving).
 */
export async function firstRefused(from: bigint, maxBytes: number, probe: (offset: bigint, windowBytes: number) => Promise<Probe>): Promise<bigint | undefined> {
  let offset = from;
  let window = 1;
  let walked = 0;
  /** The bytes from `offset` within which the refused batch lies, once a window was refused. */
  let within = Infinity;
  while (walked < maxBytes) {
    const found = await probe(offset, window);
    if ('refused' in found) {
      if (found.refused === 'other') return undefined;
      if (window === 1) return offset;
      within = window;
      window = 1;
      continue;
    }
    if (found.decoded === undefined) return undefined;
    walked += found.decoded.bytes;
    offset = found.decoded.next;
    within -= found.decoded.bytes;
    window = within === Infinity ? Math.min(window * 2, maxBytes) : Math.max(1, Math.floor(within / 2));
  }
  return undefined;
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
