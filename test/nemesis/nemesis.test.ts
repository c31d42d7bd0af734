import { randomInt } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafkaCluster, startLocalRedis, startLocalRegistry, type KafkaCluster, type LocalRedis, type LocalRegistry } from '../../dev/stack';
import { createBalanceComponents } from '../../src/app/balance';
import { loadCatalog } from '../../src/app/service';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { registerContract } from '../../src/adapters/registry/register-contract';
import pino from 'pino';
import { RedisWebhookStore } from '../../src/adapters/redis/webhook-store';
import { startWebhookDispatcher, type RunningDispatcher } from '../../src/app/webhooks';
import { loadWebhookConfig } from '../../src/webhooks/config';
import { setEndpoint } from '../../src/webhooks/registration';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { selfSignedCertificate, WebhookReceiver } from '../support/webhook-receiver';
import { TcpProxy } from '../support/tcp-proxy';
import { createActiveSubscription } from '../support/subscriptions';
import { faultConfig, FAULT_CUSTOMER, FAULT_PARTNER, workerEnv } from '../faults/support/fault-config';
import { createTopicsOnCluster } from '../faults/support/topics';
import { checkHistory, formatViolation, violationCounts } from './support/checker';
import type { History } from './support/history';
import { assertFaketime, Nemesis, WorkerPool } from './support/nemesis';
import { ClusterRedis, PairRedis, replicaSynced, type RedisShape } from './support/redis-shapes';
import { Partners, type Target } from './support/partners';
import { ChargingPartner, describeReservations } from './support/charging';
import { commandRecords, locateMissingReplies, recordFinalState, recordPortStates, reservationsEnded, waitCommitted, waitStable, type StartingBalance } from './support/final-state';
import { PortWorkload } from './support/ports';
import { describeSchedule, FAULT_KINDS, scheduleFor } from './support/schedule';

// Jepsen-style: a schedule of faults drawn from a seed (printed) strikes the workers, the brokers of a
// three-broker cluster and Redis while real partners send at once; everything sent, answered, published,
// applied and committed is recorded, and the checker (support/checker.ts) must find nothing wrong. Two runs:
// the fixed seed for NEMESIS_SECONDS (default 120) and a random one (NEMESIS_SEED replays it) for NEMESIS_RANDOM_SECONDS
// (default 30); NEMESIS_LEAVE_OUT names fault kinds not to draw (comma-separated); NEMESIS_REDIS (pair or
// cluster) sets Redis's shape for both (shapeOf). NEMESIS_DELIVERY=
// at-least-once runs the workers without output transactions: the planted defect the checker must catch (copies).
// Beside the balance partners, a port partner sends a CreatePortIn every NEMESIS_PORT_INTERVAL_MS (2000) and the
// NP side's responses reach the service duplicated and reordered (support/ports.ts); a charging partner holds
// reservations, CHARGING_SESSIONS at once, and ends them every way there is (support/charging.ts).
jest.setTimeout(1_200_000);

const SECONDS = Number(process.env.NEMESIS_SECONDS ?? 120);
const RANDOM_SECONDS = Number(process.env.NEMESIS_RANDOM_SECONDS ?? 30);
/** Commands per second of each Kafka partner: the webhook dispatcher in this process keeps up with about 20 events a second in all. */
const RATE = Number(process.env.NEMESIS_RATE ?? 40);
/** A CreatePortIn this often: a few dozen ports in 120 s, each a handful of NP responses, beside the balance load. */
const PORT_INTERVAL_MS = Number(process.env.NEMESIS_PORT_INTERVAL_MS ?? 2000);
/** The longest the run waits after the schedule for the NP side to finish the ports. */
const PORTS_WAIT_MS = 120_000;
/** The charging partner's sessions at once, each a reservation at a time. */
const CHARGING_SESSIONS = 4;
const LEFT_OUT = new Set((process.env.NEMESIS_LEAVE_OUT ?? '').split(',').filter(Boolean));
const unknownKinds = [...LEFT_OUT].filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
if (unknownKinds.length > 0) throw new Error(`NEMESIS_LEAVE_OUT: no fault kind ${unknownKinds.join(', ')} (kinds: ${FAULT_KINDS.join(', ')})`);
const KINDS = FAULT_KINDS.filter((kind) => !LEFT_OUT.has(kind));
/**
 * Redis's shape in each run: NEMESIS_REDIS (pair or cluster) for both, else for the fixed seed a primary and
 * its replica behind the test's proxy, for the random seed a Redis Cluster with a replica per master, each
 * node behind a proxy of its own. Every fault kind is drawn in both.
 */
const shapeOf = (fixedSeed: boolean): 'pair' | 'cluster' => {
  const chosen = process.env.NEMESIS_REDIS ?? (fixedSeed ? 'pair' : 'cluster');
  if (chosen !== 'pair' && chosen !== 'cluster') throw new Error(`NEMESIS_REDIS: pair or cluster, not ${chosen}`);
  return chosen;
};
if (KINDS.includes('clock-skew')) assertFaketime();
const FIXED_SEED = 51;
const RANDOM_SEED = Number(process.env.NEMESIS_SEED ?? randomInt(1, 2 ** 31 - 1));
const DELIVERY = process.env.NEMESIS_DELIVERY ?? 'exactly-once';
const WORKERS = 2;
/** Numbers the partners write: 40, more for long runs, so that no ledger outgrows what the history reads. */
/** The longest the run waits for the webhooks to catch up after it (the test's time is bounded). */
const WEBHOOK_WAIT_MS = 300_000;
const subscriptionsFor = (seconds: number) => Math.max(40, Math.ceil(seconds / 3));
/** Four JVMs start side by side: on a loaded 2-core machine that took over 90 s. */
const START_TIMEOUT_MS = 240_000;

describe('nemesis: faults from a seed under real partners, the history checked', () => {
  let cluster: KafkaCluster;
  let redis: { primary: LocalRedis; replica: LocalRedis };
  let redisShape: RedisShape | undefined;
  let registry: LocalRegistry;
  let store: RedisClient | undefined;
  let pool: WorkerPool | undefined;
  let gateway: TestGateway | undefined;
  let partners: Partners | undefined;
  let charging: ChargingPartner | undefined;
  let ports: PortWorkload | undefined;
  let nemesis: Nemesis | undefined;
  let kafkaProxies: TcpProxy[] = [];
  let dispatcher: RunningDispatcher | undefined;
  const certificate = selfSignedCertificate();
  const receiver = new WebhookReceiver(certificate);

  beforeAll(async () => {
    const began = Date.now();
    let primary: LocalRedis;
    [cluster, primary, registry] = await Promise.all([
      // relayed: each broker has a listener the workers reach through a proxy of the test's (network faults)
      startKafkaCluster({ brokers: 3, readyTimeoutMs: START_TIMEOUT_MS, relayed: true }),
      startLocalRedis({ appendOnly: true, appendFsync: 'everysec' }),
      startLocalRegistry({ readyTimeoutMs: START_TIMEOUT_MS }),
    ]);
    const replica = await startLocalRedis({ appendOnly: true, appendFsync: 'everysec', extraArgs: ['--replicaof', primary.host, String(primary.port)] });
    await replicaSynced(replica);
    redis = { primary, replica };
    console.log(`nemesis: three brokers, Redis and the registry ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  });

  /** A clean-up step that takes long is said, with its name: a hung one would otherwise stall the run silently until jest's timeout. */
  const cleaning = async (name: string, work: () => Promise<unknown> | undefined) => {
    const at = Date.now();
    const slow = setInterval(() => process.stderr.write(`nemesis: clean-up: ${name} still running after ${((Date.now() - at) / 1000).toFixed(0)} s\n`), 30_000);
    try {
      await work();
    } finally {
      clearInterval(slow);
    }
  };

  afterEach(async () => {
    await cleaning('heal', () => nemesis?.heal());
    await cleaning('partners', () => partners?.stop());
    await cleaning('charging partner', () => charging?.stop());
    charging = undefined;
    await cleaning('ports', () => ports?.close());
    ports = undefined;
    await cleaning('gateway', () => gateway?.close());
    await cleaning('webhook dispatcher', () => dispatcher?.stop());
    await cleaning('webhook receiver', () => receiver.stop());
    receiver.received.length = 0;
    await cleaning('workers', () => pool?.stop());
    await cleaning('Redis', () => redisShape?.close());
    redisShape = undefined;
    await Promise.all(kafkaProxies.map((proxy) => proxy.close()));
    kafkaProxies = [];
    store?.disconnect();
  });

  afterAll(async () => {
    await Promise.all([cluster?.stop(), redis?.primary.dispose(), redis?.replica.dispose(), registry?.dispose()]);
  });

  /**
   * The partner's webhook endpoint registered and a dispatcher (in this process, through the workers' Redis
   * proxy) delivering its events to it, retrying fast and long enough that an outage of the schedule leaves
   * no dead letter.
   */
  const startWatchedWebhooks = async (
    config: Awaited<ReturnType<typeof faultConfig>>,
    redisEnv: Record<string, string>,
    redisClient: RedisClient,
    history: History,
  ): Promise<RunningDispatcher> => {
    await receiver.start();
    await new RedisWebhookStore(redisClient, config.redis.keyPrefix).put(setEndpoint(undefined, FAULT_PARTNER, receiver.url, new Date()));
    history.push({ kind: 'webhooks', url: receiver.url });
    const env = {
      ...process.env,
      ...workerEnv(config),
      ...redisEnv,
      WEBHOOK_CA_FILE: certificate.caFile,
      WEBHOOK_START_FROM: 'earliest',
      WEBHOOK_RETRY_INITIAL_MS: '100',
      WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
      WEBHOOK_MAX_RETRY_MS: '600000',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_REFRESH_MS: '500',
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
    };
    return startWebhookDispatcher(loadWebhookConfig(env), pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  };

  /**
   * Waits until every event record was accepted by the endpoint, for as long as deliveries keep coming (the
   * dispatcher catching up after the faults), giving up after `quietMs` without a new one; then adds the
   * endpoint's requests to the history.
   */
  const webhooksSettled = async (history: History, quietMs: number): Promise<number> => {
    const began = Date.now();
    const ceIds = new Set(history.flatMap((e) => (e.kind === 'event' ? [e.ceId] : [])));
    let seen = -1;
    let progressAt = Date.now();
    for (;;) {
      const accepted = new Set(receiver.accepted.map((w) => w.headers['webhook-id']));
      if ([...ceIds].every((ceId) => accepted.has(ceId))) break;
      if (accepted.size > seen) [seen, progressAt] = [accepted.size, Date.now()];
      else if (Date.now() - progressAt > quietMs) break;
      if (Date.now() - began > WEBHOOK_WAIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const w of receiver.received) history.push({ kind: 'webhook', ceId: w.headers['webhook-id'], arrivedAt: w.arrivedAt, status: w.status });
    return Date.now() - began;
  };

  const run = async (seed: number, seconds: number, shapeName: 'pair' | 'cluster') => {
    const began = Date.now();
    // every client of the run reaches Redis as its shape says: the pair through the proxy, which a failover
    // points at the promoted replica; the cluster node by node, each through its own proxy
    const shape: RedisShape = (redisShape =
      shapeName === 'cluster' ? await ClusterRedis.start() : new PairRedis(redis, await TcpProxy.start({ host: redis.primary.host, port: redis.primary.port })));
    const redisEnv = { REDIS_URL: shape.urls.join(','), REDIS_CLUSTER: String(shape.cluster) };
    const config = await faultConfig({
      KAFKA_BROKERS: cluster.brokers.join(','),
      TOPIC_REPLICATION_FACTOR: '3',
      ...redisEnv,
      SCHEMA_REGISTRY_URL: registry.url,
      KAFKA_DELIVERY: DELIVERY,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    });
    await createTopicsOnCluster(config);
    const codec = new AvroCodec(config.schemaRegistryUrl);
    await registerContract(codec, config.topics);
    store = createRedisClient({ urls: shape.urls, cluster: shape.cluster, maxRetriesPerRequest: 20 });
    const balance = createBalanceComponents({ config, catalog: loadCatalog(config.catalogFile), redis: store });
    const targets: Target[] = [];
    const starts: StartingBalance[] = [];
    const subscriptions = await Promise.all(Array.from({ length: subscriptionsFor(seconds) }, () => createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: FAULT_CUSTOMER })));
    for (const { gpsi } of subscriptions) {
      for (const b of (await balance.balances.queryBalances(gpsi, [FAULT_CUSTOMER])).balances) {
        targets.push({ gpsi, subBalanceInstId: b.subBalanceInstId, subBalanceType: b.subBalanceType, unitType: b.unitType });
        starts.push({ gpsi, subBalanceInstId: b.subBalanceInstId, start: b.remaining });
      }
    }
    const schedule = scheduleFor({ seed, totalMs: seconds * 1000, workers: WORKERS, brokers: cluster.nodes.length, kinds: KINDS });
    const leftOut = FAULT_KINDS.filter((kind) => !KINDS.includes(kind));
    console.log(
      `nemesis: seed ${seed}, ${seconds} s, workers ${DELIVERY}, Redis ${shape.name}${leftOut.length > 0 ? ` (left out: ${leftOut.join(', ')})` : ''}; schedule:\n  ${describeSchedule(schedule).join('\n  ')}`,
    );

    const history: History = [];
    // acknowledged means replicated: a failover of the schedule must lose no change a reply announced
    // the workers reach each broker through its relayed listener's proxy: the brokers advertise the proxies' ports
    kafkaProxies = await Promise.all(cluster.nodes.map(({ relayed }) => TcpProxy.start({ host: '127.0.0.1', port: relayed!.port }, relayed!.advertisedPort)));
    const relayedBrokers = cluster.nodes.map(({ relayed }) => `127.0.0.1:${relayed!.advertisedPort}`).join(',');
    // a transfer left pending is the sweeper's only after the run: a command that comes back after the sweeper
    // settled it publishes its event again under the same id, and the checker counts event records (the
    // sweeper has its fault test, transfer-crash.test.ts)
    const workerSettings = { KAFKA_BROKERS: relayedBrokers, ...redisEnv, REDIS_REPLICAS_TO_ACK: '1', BALANCE_TRANSFER_SWEEP_AFTER_MS: '1800000' };
    pool = new WorkerPool({ ...workerEnv(config), ...workerSettings }, history);
    // the NP side and the port partner join their groups while the workers start
    const portsReady = PortWorkload.start(config, history);
    portsReady.catch(() => undefined); // awaited below; marked handled meanwhile
    await pool.start(WORKERS);
    gateway = await startTestGateway(config, { ...workerEnv(config), GATEWAY_REPLY_TIMEOUT_MS: '5000' });
    ports = await portsReady;
    partners = new Partners({ config, codec, targets, history, gatewayUrl: gateway.url, ratePerSecond: RATE });
    charging = await ChargingPartner.start(config, targets, history);
    dispatcher = await startWatchedWebhooks(config, redisEnv, store, history);
    nemesis = new Nemesis(cluster, shape, kafkaProxies, receiver, pool, history);
    partners.start();
    charging.begin(CHARGING_SESSIONS);
    ports.start(PORT_INTERVAL_MS);
    const faultsBegan = Date.now();
    /** Each step after the schedule, timed, so a run that ends late says where its time went. */
    const steps: string[] = [];
    const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const at = Date.now();
      const result = await work();
      steps.push(`${name} ${((Date.now() - at) / 1000).toFixed(1)} s`);
      process.stderr.write(`nemesis: seed ${seed}: ${steps.at(-1)}\n`);
      return result;
    };
    await nemesis.play(schedule, seconds * 1000);
    await step('heal', () => nemesis!.heal());
    const faultsMs = Date.now() - faultsBegan;
    // the ports finish alongside the balance steps below: their last replies, then the NP side's responses
    const portsSettled = ports.stop().then(() => ports!.settle(PORTS_WAIT_MS));
    portsSettled.catch(() => undefined); // awaited below; marked handled meanwhile
    await step('partners stopped', () => Promise.all([partners!.stop(), charging!.stop()]));
    charging = undefined;
    // a partner's transaction cut short holds its partition until the coordinator aborts it (10 s + its check interval)
    history.push(...(await step('no transaction open', () => waitStable(config, 60_000))));
    const commands = await step('command records read', () => commandRecords(config, history));
    const settleMs = await step('offsets committed', () => waitCommitted(config, commands, 60_000));
    await step('reservations ended', () => reservationsEnded(balance.balances, store!, config.redis.keyPrefix, starts, 60_000));
    await step('final state read', () => recordFinalState(config, balance.balances, starts, commands, history));
    await step('ports settled', () => portsSettled);
    await step('port states read', () => recordPortStates(ports!, history));
    const webhooksMs = await step('webhooks delivered', () => webhooksSettled(history, 30_000));
    const violations = checkHistory(history);
    const historyFile = join(mkdtempSync(join(tmpdir(), 'nemesis-')), `history-${seed}.json`);
    writeFileSync(historyFile, JSON.stringify(history));

    const counts = (kind: History[number]['kind']) => history.filter((e) => e.kind === kind).length;
    const portStates = history.filter((e) => e.kind === 'port-state');
    const endedIn = (status: string) => portStates.filter((e) => e.status === status).length;
    const np = history.find((e) => e.kind === 'np-side');
    /** Event records of the ports again under an id already seen: a repeated NP response's outcome replayed (no violation). */
    const portEventCopies = portStates.reduce(
      (sum, s) => sum + s.statusEvents.length - new Set(s.statusEvents.map((e) => e.ceId)).size + s.activationEvents.length - new Set(s.activationEvents).size,
      0,
    );
    console.log(
      [
        `nemesis: seed ${seed} — operations: sent ${JSON.stringify(partners.sent)} (aborted on purpose ${partners.aborted}, transactional producers renewed ${partners.renewed}, HTTP retries ${partners.retries}, transfers ${partners.transfers}),`,
        `command records ${counts('command')}, replies ${counts('reply')}, events ${counts('event')}, applied ${counts('applied')} (transfers credited ${counts('credited')}, reversed ${counts('reversed')});`,
        `reservations ${counts('reservation')} (${describeReservations(history)}), ReservationExpired events ${counts('expired')};`,
        `faults ${JSON.stringify(nemesis.played)} (left out while their class recovered ${JSON.stringify(nemesis.skipped)}) over ${(faultsMs / 1000).toFixed(1)} s; settled ${(settleMs / 1000).toFixed(1)} s after, webhooks ${(webhooksMs / 1000).toFixed(1)} s after that;`,
        `webhook requests ${counts('webhook')} (${history.filter((e) => e.kind === 'webhook' && e.status >= 300).length} failed or timed out);`,
        `ports: sent ${ports.ports.length} (${ports.ports.filter((p) => p.faulty).length} with their NP responses duplicated and reordered), answered Success ${history.filter((e) => e.kind === 'port-reply' && e.status === 'Success').length},`,
        `completed ${endedIn('COMPLETED')}, rejected ${endedIn('REJECTED')}, cancelled ${endedIn('CANCELLED')}, event copies under the same id ${portEventCopies};`,
        `NP responses: from the simulator ${np?.received}, delivered ${np?.delivered}, duplicated ${np?.duplicated}, reordered ${np?.reordered}${np?.drained ? '' : ' (not all consumed)'};`,
        `workers handled ${pool.all.reduce((sum, w) => sum + w.handled.length, 0)} in ${pool.all.length} processes;`,
        `after the schedule: ${steps.join(', ')};`,
        `anomalies ${JSON.stringify(violationCounts(violations))}; ${((Date.now() - began) / 1000).toFixed(1)} s; history ${historyFile}`,
      ].join(' '),
    );
    // the first three of each kind: one kind in hundreds must not hide the others
    const kinds = [...new Set(violations.map((v) => v.kind))];
    for (const kind of kinds) for (const v of violations.filter((x) => x.kind === kind).slice(0, 3)) console.log(formatViolation(v));
    const missingReplies = violations.filter((v) => v.kind === 'reply-missing').map((v) => v.subject);
    if (missingReplies.length > 0) console.log(`nemesis: seed ${seed}: the replies missing, read again: ${JSON.stringify(await locateMissingReplies(config, missingReplies))}`);
    expect(counts('applied')).toBeGreaterThan(0);
    expect(endedIn('COMPLETED')).toBeGreaterThan(0);
    expect(violationCounts(violations)).toEqual({});
  };

  it(`fixed seed ${FIXED_SEED}, Redis ${shapeOf(true)}`, () => run(FIXED_SEED, SECONDS, shapeOf(true)));
  it(`random seed ${RANDOM_SEED} (NEMESIS_SEED=${RANDOM_SEED} replays it), Redis ${shapeOf(false)}`, () => run(RANDOM_SEED, RANDOM_SECONDS, shapeOf(false)));
});
