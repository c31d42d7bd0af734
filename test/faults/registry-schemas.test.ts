import { randomUUID } from 'node:crypto';
import { DLQ_HEADER } from '../../src/contract/headers';
import { avroString, wireHeader } from '../support/avro-bytes';
import { createTopics } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { BalanceLoad, expectExactlyOnce, tallyExtras } from './support/balance-load';
import { faultConfig, partnerHeaders, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { drainTopic, headerString, kafkaClient } from './support/topics';

jest.setTimeout(180_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 14, item 4: records whose schema id names a schema the registry holds but the worker's Avro
 * decoder cannot use. Apicurio (Java Avro) accepts a record named with a non-ASCII letter, which avsc
 * refuses to parse; a JSON Schema has an id in the same id space. Each such record must be dead-lettered
 * (UNDECODABLE), on the command topics and the NP responses topic alike, and never hold its partition: the
 * valid commands behind it, on every partition, are all applied once.
 */
const PARTITIONS = 4;

async function registerSchema(registryUrl: string, subject: string, body: object): Promise<number> {
  const response = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`registry refused ${subject}: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}

describe('a registry schema the decoder cannot parse', () => {
  let worker: WorkerProcess | undefined;
  let load: BalanceLoad | undefined;

  afterAll(async () => {
    await worker?.signal('SIGKILL');
    await load?.stop();
  });

  it('its records are dead-lettered and hold no partition', async () => {
    const began = Date.now();
    const config = await faultConfig();
    const { topics } = config;
    await createTopics(config);
    const suffix = randomUUID().slice(0, 8);
    const ids = {
      'Avro avsc cannot parse': await registerSchema(config.schemaRegistryUrl, `${topics.balanceCommands}-Unparseable${suffix}`, {
        schema: JSON.stringify({ type: 'record', name: `Caf\u00e9${suffix}`, fields: [{ name: 'na\u00efve', type: 'string' }] }),
      }),
      'JSON Schema': await registerSchema(config.schemaRegistryUrl, `${topics.balanceCommands}-Json${suffix}`, {
        schemaType: 'JSON',
        schema: JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', title: `J${suffix}`, type: 'object' }),
      }),
    };
    load = await BalanceLoad.prepare(config, { subscriptions: 8, commands: 200, producers: 1, ratePerSecond: 100 });
    await load.watchReplies();

    // first on every partition of the balance commands and the NP responses: the worker meets them first
    const partner = kafkaClient(config.kafka.brokers, 'faults-schemas').producer({ allowAutoTopicCreation: false });
    await partner.connect();
    const sent: { kind: string; topic: string; partition: number; offset: string }[] = [];
    for (const [kind, id] of Object.entries(ids)) {
      for (const topic of [topics.balanceCommands, topics.npResponses]) {
        for (let partition = 0; partition < PARTITIONS; partition++) {
          const headers = await partnerHeaders(randomUUID());
          const [ack] = await partner.send({ topic, acks: -1, messages: [{ partition, key: `k${partition}`, value: Buffer.concat([wireHeader(id), avroString('15550001111')]), headers }] });
          sent.push({ kind, topic, partition, offset: ack.baseOffset! });
        }
      }
    }
    await partner.disconnect();
    worker = await WorkerProcess.start(workerEnv(config));
    await load.send();
    await worker.whileRunning(load.settled(60_000));

    const deadLetters = new Map(
      (await drainTopic(config.kafka.brokers, topics.deadLetters)).map((d) => [
        [headerString(d, DLQ_HEADER.sourceTopic), headerString(d, DLQ_HEADER.sourcePartition), headerString(d, DLQ_HEADER.sourceOffset)].join('/'),
        headerString(d, DLQ_HEADER.reason),
      ]),
    );
    const reasons = sent.map(
      (s) => `${s.kind} on ${s.topic === topics.npResponses ? 'NP responses' : 'commands'}: ${deadLetters.get(`${s.topic}/${s.partition}/${s.offset}`) ?? 'not dead-lettered'}`,
    );
    const tally = await load.tally();
    report('registry schemas the decoder cannot parse', tally, [
      `${sent.length} records of schema ids ${Object.values(ids).join(', ')}: ${[...new Set(reasons)].join(', ')}`,
      `worker outcomes ${JSON.stringify(worker.outcomes())}`,
      ...tallyExtras(tally),
      seconds(began),
    ]);
    expect(new Set(reasons)).toEqual(new Set(sent.map((s) => `${s.kind} on ${s.topic === topics.npResponses ? 'NP responses' : 'commands'}: UNDECODABLE`)));
    expect(worker.running).toBe(true);
    expectExactlyOnce(tally, 200);
  });
});
