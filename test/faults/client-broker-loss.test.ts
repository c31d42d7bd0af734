import { startKafkaCluster, type KafkaCluster } from '../../dev/stack';
import { WholesaleClient } from '../../src/client';
import { retry } from '../../src/shared/retry';
import { clientConfigFor } from '../support/client';
import { testLogger } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';
import { HEADER } from '../../src/contract/headers';
import { FAULT_CUSTOMER, FAULT_PARTNER, faultConfig, faultPartnerTopics, partnerToken, workerEnv } from './support/fault-config';
import { report, seconds } from './support/report';
import { createTopicsOnCluster, drainTopic, headerString, leaderOfPartitionZero, type TopicRecord } from './support/topics';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/**
 * The client library's own sends through a broker loss. It sent the commands of one turn of the event loop
 * in one kafkajs sendBatch, and kafkajs's retry of such a call, when a broker dies mid-call, can resolve
 * with part of its messages never written (tulios/kafkajs#1303): the call then waits for a reply that
 * cannot come and times out. Calls in flight while one of three brokers is killed must all be answered.
 */
const CONCURRENT = 4 * 50;
/** Answers wanted after the kill: the service and the client keep serving on the two brokers left. */
const AFTER_KILL = 5000;
const randomEligibleGpsi = () => `17${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WholesaleClient on a three-broker cluster (RF 3, min.insync.replicas 2), one broker killed', () => {
  let cluster: KafkaCluster;
  let worker: WorkerProcess | undefined;
  let client: WholesaleClient | undefined;

  beforeAll(async () => {
    cluster = await startKafkaCluster({ brokers: 3 });
  });

  afterAll(async () => {
    await client?.close();
    await worker?.signal('SIGKILL');
    await cluster?.stop();
  });

  it('every call in flight is answered', async () => {
    const began = Date.now();
    const config = await faultConfig({ KAFKA_BROKERS: cluster.brokers.join(','), TOPIC_REPLICATION_FACTOR: '3' });
    await createTopicsOnCluster(config);
    worker = await WorkerProcess.start(workerEnv(config));
    const connect = () =>
      WholesaleClient.connect({
        // on the shared command topic, whose partition 0's leader this test kills
        config: clientConfigFor(config, { KAFKA_BROKERS: cluster.brokers.join(','), CLIENT_TIMEOUT_MS: '60000', WHOLESALE_SHARED_COMMAND_TOPICS: 'true' }),
        tokenProvider: partnerToken,
        wholesaleCustomerId: FAULT_CUSTOMER,
        partnerId: FAULT_PARTNER,
        log: testLogger(config),
      });
    // right after the topics were created a broker may not know them yet (tulios/kafkajs#815)
    const connected = await retry(connect, { backoff: { initialMs: 200, maxMs: 1000 }, timeoutMs: 30_000, retriable: () => true });
    client = connected;
    await connected.checkPortInEligibility({ gpsi: randomEligibleGpsi() });

    let answered = 0;
    let stopping = false;
    const failures: string[] = [];
    // closed loops of calls on random numbers: every command partition, every broker, all the time
    const loop = async () => {
      while (!stopping) {
        await connected.checkPortInEligibility({ gpsi: randomEligibleGpsi() }).then(
          (reply) => (reply.eligibilityStatus === 'Eligible' ? answered++ : failures.push(`unexpected reply ${JSON.stringify(reply)}`)),
          (error: unknown) => failures.push(String(error)),
        );
      }
    };
    const loops = Array.from({ length: CONCURRENT }, loop);
    while (answered < 2000) await sleep(50);

    const victim = await leaderOfPartitionZero(cluster.brokers, config.topics.portinCommands);
    await cluster.node(victim).kill();
    const killedAt = Date.now();
    const answeredAtKill = answered;
    // calls to the partitions the victim led wait until the cluster has elected their new leaders
    while (answered < answeredAtKill + AFTER_KILL && Date.now() - killedAt < 120_000) await sleep(50);
    const recoveredMs = Date.now() - killedAt;
    stopping = true;
    await Promise.all(loops);

    // what the topics hold: the client's commands (one correlation id per call) and the service's replies
    const byCorrelationId = (records: TopicRecord[]) => {
      const counts = new Map<string, number>();
      for (const r of records) {
        const id = headerString(r, HEADER.correlationId);
        if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };
    const commands = byCorrelationId(await drainTopic(cluster.brokers, config.topics.portinCommands));
    const replies = byCorrelationId(await drainTopic(cluster.brokers, faultPartnerTopics(config).portinReplies));
    const records = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n, 0);
    const calls = answered + failures.length + 1; // and the first call, before the loops
    report(
      'client library, one of 3 brokers killed for good',
      {
        sent: commands.size,
        replied: [...commands.keys()].filter((id) => replies.has(id)).length,
        lost: failures.length,
        copies: { replies: records(replies) - replies.size },
      },
      [
        `broker ${victim} (leader of port-in commands partition 0) killed at ${answeredAtKill} answers, ${AFTER_KILL} more answered ${(recoveredMs / 1000).toFixed(1)} s after; ${CONCURRENT} calls in flight throughout`,
        `sent = commands on the topic (distinct correlation ids; ${records(commands)} records) of ${calls} calls, replied = those with a reply on the partner's topic (the client counted ${answered} answered), lost = calls without a reply within 60 s; eligibility checks, which apply nothing`,
        seconds(began),
      ],
    );
    expect(failures).toEqual([]);
    // every call's command reached the topic and was answered there
    expect(commands.size).toBe(calls);
    expect([...commands.keys()].filter((id) => !replies.has(id))).toEqual([]);
    expect(answered - answeredAtKill).toBeGreaterThanOrEqual(AFTER_KILL);
    expect(connected.inFlight).toBe(0);
  });
});
