import { randomUUID } from 'node:crypto';
import { Consumer, FetchIsolationLevels, ListOffsetTimestamps, MessagesStreamModes, type Message } from '@platformatic/kafka';

// A second read_committed reader of whole topics, on another Kafka client than the tally's (kafkajs, topics.ts):
// @platformatic/kafka used directly, not through the service's adapters. Two clients filter aborted
// transactions each its own way, so a count both agree on does not rest on one client's filter.

/** A record as this reader gives it: its partition and its headers by name (the first value of each). */
export interface CommittedRecord {
  partition: number;
  headers: Map<string, string>;
  value: Buffer | undefined;
}

/**
 * After the topics' records came, this long without another ends the read (a trailing commit marker is never
 * handed out). 2 s ended a read early on a loaded machine after a broker's restart: the nemesis counted 4
 * replies missing that kafkajs, reading the topic again, found committed.
 */
const QUIET_MS = 6_000;

/** Every committed record of `topics` up to their last stable offsets at the time of the call, by topic. */
export async function readCommitted(brokers: string[], topics: string[], timeoutMs = 60_000): Promise<Map<string, CommittedRecord[]>> {
  const consumer = new Consumer({
    clientId: 'faults-second-reader',
    bootstrapBrokers: brokers,
    groupId: `second-reader-${randomUUID()}`,
    autocommit: false,
    maxWaitTime: 200,
    isolationLevel: FetchIsolationLevels.READ_COMMITTED,
  });
  const byTopic = new Map<string, CommittedRecord[]>(topics.map((topic) => [topic, []]));
  try {
    const [lows, stable] = await Promise.all(
      [ListOffsetTimestamps.EARLIEST, ListOffsetTimestamps.LATEST].map((timestamp) => consumer.listOffsets({ topics, timestamp, isolationLevel: FetchIsolationLevels.READ_COMMITTED })),
    );
    const ends = new Map<string, bigint>();
    const offsets = topics.flatMap((topic) =>
      (stable.get(topic) ?? []).flatMap((end, partition) => {
        const from = lows.get(topic)?.[partition] ?? 0n;
        if (end <= from) return [];
        ends.set(`${topic}:${partition}`, end);
        return [{ topic, partition, offset: from }];
      }),
    );
    if (offsets.length === 0) return byTopic;
    const next = new Map<string, bigint>();
    const stream = await consumer.consume({ topics, mode: MessagesStreamModes.MANUAL, offsets, autocommit: false });
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`second reader: not finished within ${timeoutMs} ms`)), timeoutMs);
      const done = () => {
        clearTimeout(deadline);
        resolve();
      };
      // started before the first record too: every record of a partition may be of aborted transactions
      let quiet = setTimeout(done, 2 * QUIET_MS);
      stream.on('error', (error: Error) => {
        clearTimeout(deadline);
        clearTimeout(quiet);
        reject(error);
      });
      stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => {
        const key = `${message.topic}:${message.partition}`;
        const end = ends.get(key);
        // the stream can hand out a record again (a fetch of offsets already handed out): one record is counted once
        if (end === undefined || message.offset >= end || message.offset < (next.get(key) ?? 0n)) return;
        next.set(key, message.offset + 1n);
        const headers = new Map<string, string>();
        for (const [name, value] of message.headers) if (!headers.has(name.toString())) headers.set(name.toString(), value.toString());
        byTopic.get(message.topic)!.push({ partition: message.partition, headers, value: message.value ?? undefined });
        clearTimeout(quiet);
        quiet = setTimeout(done, QUIET_MS);
      });
    });
    await stream.close();
    return byTopic;
  } finally {
    await consumer.close(true).catch(() => undefined);
  }
}
