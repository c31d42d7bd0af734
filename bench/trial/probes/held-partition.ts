import { clientsFromArgs, connectProbeTransport, probeId, probeSettings, produceNumbered, report, setupClient, sleep } from './support';

/**
 * Probe (c): a held record holds only its own partition. Two partitions of 600 records each, 5 ms per record; the first
 * time partition 0 reaches offset 50 the batch resolves up to 49, pauses partition 0 alone and returns; it is
 * resumed HOLD_MS later. Measured: records of partition 1 handled while partition 0 was held, where
 * partition 0 started again (must be offset 50), and whether every record of both came.
 */
const PER_PARTITION = 600;
const HELD_AT = 50;
/** Each record takes this long, so partition 1 is still flowing when partition 0 is held. */
const RECORD_MS = 5;
const HOLD_MS = 3_000;

async function probe(client: Parameters<typeof connectProbeTransport>[0]): Promise<void> {
  const topic = probeId('held');
  const setup = await setupClient();
  await setup.admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
  await produceNumbered(setup.kafka, topic, 2, PER_PARTITION);
  const transport = await connectProbeTransport(client, probeSettings(probeId('held-group')));
  await transport.consumer.subscribe([topic]);
  const seen = [new Set<string>(), new Set<string>()];
  let heldAt: number | undefined;
  let resumedAt: number | undefined;
  let otherDuringHold = 0;
  let firstAfterResume: string | undefined;
  let pauseError: string | undefined;
  await transport.consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, uncommittedOffsets }) => {
      for (const message of batch.messages) {
        await sleep(RECORD_MS);
        if (batch.partition === 0 && heldAt === undefined && Number(message.offset) === HELD_AT) {
          heldAt = Date.now();
          try {
            transport.consumer.pause([{ topic, partitions: [0] }]);
          } catch (error) {
            pauseError = (error as Error).message;
          }
          setTimeout(() => {
            resumedAt = Date.now();
            transport.consumer.resume([{ topic, partitions: [0] }]);
          }, HOLD_MS);
          break;
        }
        if (batch.partition === 0 && resumedAt !== undefined && firstAfterResume === undefined) firstAfterResume = message.offset;
        if (batch.partition === 1 && heldAt !== undefined && resumedAt === undefined) otherDuringHold++;
        seen[batch.partition]!.add(message.offset);
        resolveOffset(message.offset);
      }
      await commitOffsetsIfNecessary(uncommittedOffsets());
    },
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && (seen[0]!.size < PER_PARTITION || seen[1]!.size < PER_PARTITION)) await sleep(100);
  report('held-partition', client, {
    pauseError,
    partition1HandledWhileHeld: otherDuringHold,
    partition0RestartedAt: firstAfterResume,
    partition0Complete: seen[0]!.size === PER_PARTITION,
    partition1Complete: seen[1]!.size === PER_PARTITION,
    heldMs: resumedAt && heldAt ? resumedAt - heldAt : undefined,
  });
  await transport.consumer.disconnect().catch(() => undefined);
  await transport.close();
  await setup.admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await setup.close();
}

async function main(): Promise<void> {
  for (const client of clientsFromArgs()) {
    await probe(client).catch((error) => report('held-partition', client, { failed: (error as Error).message, stack: process.env.PROBE_STACK ? String((error as Error).stack) + JSON.stringify(error) : undefined }));
  }
}

main().then(() => process.exit(0));
