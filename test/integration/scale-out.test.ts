import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { startService, type RunningService } from '../../src/app/service';
import type { ServiceConfig } from '../../src/app/config';
import { startKafkaCluster, startRedisCluster, type KafkaCluster, type RedisCluster } from '../../dev/stack';
import { HEADER } from '../../src/contract/headers';
import { balanceComponentsOf, balanceRecord } from '../support/balance-client';
import { testConfig, testLogger, TestRequester, type Reply } from '../support/harness';
import { sampleSum, scrape } from '../support/prometheus';
import { until } from '../support/until';
import { createActiveSubscription, randomGpsi, type TestSubscription } from '../support/subscriptions';

/**
 * Scale-out: two worker instances in one consumer group on a three-broker Kafka cluster (topics with 6
 * partitions, replication factor 3) and a three-master Redis Cluster. Commands go to every partition of
 * both command topics; every reply must arrive and every final balance must be exact. Then one instance
 * leaves and the other takes over all partitions without losing a command.
 * Heavy (three Kafka JVMs): it starts its own servers and reports how long each phase took.
 */
const PARTITIONS = 6;
const SUBSCRIPTIONS_PER_PARTITION = 3;
const ADDS_PER_SUBSCRIPTION = 4;
const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';
const DATA_INSTANCE = 4; // the plan's On-Net Data sub-balance (`<gpsi>-4`, 5120 MB)

const timings: Record<string, number> = {};
async function timed<T>(phase: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[phase] = (Date.now() - started) / 1000;
  }
}

/** The partition kafkajs' default partitioner (Java-compatible murmur2) gives a key. */
const partitionOf = (() => {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({ partitionId, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));
  return (key: string) => partitioner({ topic: 'any', partitionMetadata, message: { key, value: null } });
})();

/** Numbers chosen so that every partition gets the same number of subscriptions. */
function gpsisOverEveryPartition(): string[] {
  const byPartition = Array.from({ length: PARTITIONS }, () => [] as string[]);
  while (byPartition.some((list) => list.length < SUBSCRIPTIONS_PER_PARTITION)) {
    const gpsi = randomGpsi();
    const list = byPartition[partitionOf(gpsi)];
    if (list.length < SUBSCRIPTIONS_PER_PARTITION) list.push(gpsi);
  }
  return byPartition.flat();
}

describe('scale-out: two workers in one group on a Kafka cluster and a Redis Cluster', () => {
  let kafka: KafkaCluster;
  let redis: RedisCluster;
  let config: ServiceConfig;
  const workers: RunningService[] = [];
  let requester: TestRequester;
  let subscriptions: TestSubscription[];
  const started = Date.now();

  beforeAll(async () => {
    [kafka, redis] = await timed('start 3 Kafka brokers + 3 Redis masters', () => Promise.all([startKafkaCluster({ brokers: 3 }), startRedisCluster({ masters: 3 })]));
    config = testConfig({
      KAFKA_BROKERS: kafka.brokers.join(','),
      REDIS_URL: redis.urls.join(','),
      REDIS_CLUSTER: 'true',
      TOPIC_PARTITIONS: String(PARTITIONS),
      TOPIC_REPLICATION_FACTOR: '3',
    });
    await timed('start 2 workers and join the group', async () => {
      for (let i = 0; i < 2; i++) workers.push(await startService(config, testLogger(config), { httpPort: 0 }));
      await Promise.all(workers.map((w) => w.joined));
    });
    requester = await TestRequester.start(config);
    const balance = balanceComponentsOf(workers[0], config);
    subscriptions = await Promise.all(gpsisOverEveryPartition().map((gpsi) => createActiveSubscription(balance.subscriptions, { gpsi })));
  }, 300_000);

  afterAll(async () => {
    await requester?.stop();
    for (const worker of workers) await worker.stop();
    await Promise.all([kafka?.stop(), redis?.stop()]);
    timings.total = (Date.now() - started) / 1000;
    process.stdout.write(`scale-out timings (s): ${JSON.stringify(timings)}\n`);
  }, 120_000);

  /** Partitions of every topic the group consumes (both command topics and NP responses). */
  const partitionsConsumed = () => PARTITIONS * workers[0].consumedTopics.length;
  const assigned = async (worker: RunningService) => sampleSum(await scrape(worker.httpPort!), 'wholesale_consumer_assigned_partitions');
  const handled = async (worker: RunningService, operation: string) => sampleSum(await scrape(worker.httpPort!), 'wholesale_commands_total', { operation, outcome: 'Success' });

  /** Sends ADDS_PER_SUBSCRIPTION UpdateBalances Add commands per subscription (all at once) and an eligibility check per number. */
  async function wave(quantity: (i: number) => number): Promise<Reply[]> {
    const sends = subscriptions.flatMap((sub) => [
      ...Array.from({ length: ADDS_PER_SUBSCRIPTION }, (_, i) =>
        requester.send(
          'balanceCommands',
          balanceRecord('UpdateBalances'),
          {
            gpsi: sub.gpsi,
            balances: [{ subBalanceInstId: `${sub.gpsi}-${DATA_INSTANCE}`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: quantity(i), unitType: 'MB' }],
          },
          { headers: { [HEADER.wholesaleCustomerId]: sub.wholesaleCustomerId } },
        ),
      ),
      requester.send('portinCommands', ELIGIBILITY, { gpsi: sub.gpsi }),
    ]);
    return Promise.all(sends);
  }

  const expectAllSucceeded = (replies: Reply[]) => {
    const failed = replies.filter((r) => r.headers[HEADER.status] !== 'Success').map((r) => `${r.recordName}: ${JSON.stringify(r.value)}`);
    expect(failed).toEqual([]);
    expect(replies).toHaveLength(subscriptions.length * (ADDS_PER_SUBSCRIPTION + 1));
  };

  it('splits the partitions of the consumed topics between the two workers', async () => {
    const shares = await until(
      'both workers assigned',
      async () => {
        const counts = await Promise.all(workers.map(assigned));
        return counts[0] > 0 && counts[1] > 0 && counts[0] + counts[1] === partitionsConsumed() ? counts : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(shares.reduce((a, b) => a + b)).toBe(partitionsConsumed());
  });

  it('answers every command spread over every partition of both topics, each worker handling its share, each command once', async () => {
    const replies = await timed(`wave 1: ${subscriptions.length * (ADDS_PER_SUBSCRIPTION + 1)} commands on 2 workers`, () => wave((i) => i + 1));
    expectAllSucceeded(replies);

    const admin = new Kafka({ brokers: config.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      for (const topic of [config.topics.balanceCommands, config.topics.portinCommands]) {
        const ends = await admin.fetchTopicOffsets(topic);
        expect(
          ends
            .filter((p) => Number(p.high) > 0)
            .map((p) => p.partition)
            .sort(),
        ).toEqual([...Array(PARTITIONS).keys()]);
      }
    } finally {
      await admin.disconnect();
    }
    const perWorker = await Promise.all(workers.map((w) => handled(w, 'UpdateBalances')));
    expect(perWorker.every((count) => count > 0)).toBe(true);
    expect(perWorker[0] + perWorker[1]).toBe(subscriptions.length * ADDS_PER_SUBSCRIPTION);
  });

  it('keeps answering when one worker leaves: the other takes over every partition; final balances are exact (nothing lost or applied twice)', async () => {
    const leaving = workers.pop()!;
    await timed('worker 2 leaves, worker 1 rebalances', async () => {
      await leaving.stop();
      await until('worker 1 owns every partition', async () => ((await assigned(workers[0])) === partitionsConsumed() ? true : undefined), { timeoutMs: 90_000 });
    });
    const replies = await timed(`wave 2: ${subscriptions.length * (ADDS_PER_SUBSCRIPTION + 1)} commands on 1 worker`, () => wave((i) => 10 * (i + 1)));
    expectAllSucceeded(replies);

    // Final balances: 5120 MB + (1+2+3+4) from wave 1 + (10+20+30+40) from wave 2, on every subscription.
    const expected = 5120 + 10 + 100;
    const finals = await Promise.all(
      subscriptions.map((sub) => requester.send('balanceCommands', balanceRecord('QueryBalances'), { gpsi: sub.gpsi }, { headers: { [HEADER.wholesaleCustomerId]: sub.wholesaleCustomerId } })),
    );
    const data = finals.map(
      (reply) =>
        reply.value.balances
          .flatMap((b: { subBalances: { subBalanceInstId: string; remainingBalance: number }[] }) => b.subBalances)
          .find((s: { subBalanceInstId: string }) => s.subBalanceInstId.endsWith(`-${DATA_INSTANCE}`))?.remainingBalance,
    );
    expect(data).toEqual(subscriptions.map(() => expected));
  });
});
