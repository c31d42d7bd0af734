import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Partitioners, type Consumer, type IHeaders, type PartitionMetadata, type Producer } from 'kafkajs';
import type { ServiceConfig } from '../../../src/app/config';
import { loadNpSimulatorConfig } from '../../../dev/np-simulator/config';
import { createBalanceComponents } from '../../../src/app/balance';
import { loadCatalog } from '../../../src/app/service';
import { createRedisClient, type RedisClient } from '../../../src/adapters/redis/client';
import { subscriberKeys } from '../../../src/adapters/redis/keys';
import { ACTIVATION_OPERATION } from '../../../src/adapters/redis/subscription-store';
import type { SubscriptionStore } from '../../../src/adapters/redis/subscription-store';
import { PORTIN_EVENT_RECORD } from '../../../src/domain/portin/records';
import { startNpSimulator, type NpSimulator } from '../../../dev/np-simulator/np-simulator';
import { HEADER } from '../../../src/contract/headers';
import { envFor, testLogger, TestRequester, TopicReader, type Reply } from '../../support/harness';
import { createCommand, gpsiEndingIn, PORTIN } from '../../support/portin/journey';
import { WorkerProcess } from '../../support/worker-process';
import { FAULT_CUSTOMER, partnerToken, workerEnv } from './fault-config';
import { groupProgress, kafkaClient } from './topics';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Port shapes the simulator plays (by the number's last digits): the status changes each ends with. */
export const NP_SHAPES = [
  { name: 'completed', suffix: '21', count: 10, statuses: ['CONFIRMED', 'COMPLETED'], subscription: 'ACTIVE' },
  { name: 'delayed, then completed', suffix: '14', count: 5, statuses: ['DELAYED', 'CONFIRMED', 'COMPLETED'], subscription: 'ACTIVE' },
  { name: 'rejected', suffix: '13', count: 5, statuses: ['REJECTED'], subscription: 'PENDING' },
];

export interface ShapedPort {
  shape: (typeof NP_SHAPES)[number];
  gpsi: string;
}

/** `count` × `scale` ports of each shape, and how many NP responses the simulator sends for them (+ an OrderIdAssigned each). */
export function shapedPorts(scale = 1): { ports: ShapedPort[]; responses: number } {
  const ports = NP_SHAPES.flatMap((shape) => Array.from({ length: shape.count * scale }, () => ({ shape, gpsi: gpsiEndingIn(shape.suffix) })));
  return { ports, responses: ports.reduce((sum, p) => sum + p.shape.statuses.length + 1, 0) };
}

/** A copy of the configuration's catalog without one plan (CATALOG_FILE of a worker whose catalog lost it). */
export function catalogWithout(config: ServiceConfig, planId: string): string {
  const catalog = JSON.parse(readFileSync(config.catalogFile, 'utf8')) as { plans: { wholesalePlanId: string }[] };
  const file = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
  writeFileSync(file, JSON.stringify({ ...catalog, plans: catalog.plans.filter((p) => p.wholesalePlanId !== planId) }));
  return file;
}

/**
 * The NP fault tests' rig: worker processes, the NP simulator answering on the responses topic, the
 * partner's requester (with its token), every port-in and balance event read back, and the subscription
 * store over Redis for the subscriptions' status.
 */
export class NpRig {
  readonly workers: WorkerProcess[] = [];
  private simulator?: NpSimulator;

  private constructor(
    private readonly config: ServiceConfig,
    /** Filled as the events arrive. */
    readonly events: Reply[],
    /** The partner's requester (its replies read from every reply topic). */
    readonly requester: TestRequester,
    private readonly reader: TopicReader,
    private readonly redis: RedisClient,
    readonly subscriptions: SubscriptionStore,
  ) {}

  static async start(config: ServiceConfig): Promise<NpRig> {
    const requester = await TestRequester.start(config, undefined, { tokenProvider: partnerToken });
    const events: Reply[] = [];
    const reader = await TopicReader.start(config, [config.topics.portinEvents, config.topics.balanceEvents], (event) => events.push(event));
    const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    const subscriptions = createBalanceComponents({ config, catalog: loadCatalog(config.catalogFile), redis }).subscriptions;
    return new NpRig(config, events, requester, reader, redis, subscriptions);
  }

  async startWorker(name: string, env: Record<string, string> = {}, preload: string[] = []): Promise<WorkerProcess> {
    const worker = await WorkerProcess.start({ ...workerEnv(this.config), ...env }, name, undefined, preload);
    this.workers.push(worker);
    return worker;
  }

  /** The simulator answers every NP request at 100,000 times real speed, on the service's responses topic unless told another. */
  async startSimulator(responsesTopic = this.config.topics.npResponses): Promise<void> {
    const { config } = this;
    this.simulator = await startNpSimulator(
      loadNpSimulatorConfig({
        ...process.env,
        ...envFor(config),
        KAFKA_BROKERS: config.kafka.brokers.join(','),
        // the configuration's registry (a run's own, as the nemesis's), not only the environment's
        SCHEMA_REGISTRY_URL: config.schemaRegistryUrl,
        TOPIC_NP_RESPONSES: responsesTopic,
        NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`,
        NP_SIM_TIME_SCALE: '100000',
      }),
      // WORKER_LOG_DIR: the simulator's lines (each response sent, in order) go there too, beside the workers'
      {
        log: process.env.WORKER_LOG_DIR
          ? pino({ level: 'info' }, pino.destination({ dest: join(process.env.WORKER_LOG_DIR, `np-simulator-${process.pid}.log`), sync: true }))
          : testLogger(config),
      },
    );
    await this.simulator.joined;
  }

  private send(operation: string, gpsi: string, value: object) {
    return this.requester.send('portinCommands', PORTIN(operation), value, { key: gpsi, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
  }

  /** CreatePortIn for each number; resolves with the reply statuses. */
  async createPortIns(numbers: string[], overrides: Record<string, unknown> = {}): Promise<string[]> {
    const replies = await Promise.all(numbers.map((gpsi) => this.send('CreatePortIn', gpsi, createCommand(gpsi, overrides))));
    return replies.map((r) => r.value.status as string);
  }

  /** The partition of the NP responses topic a number's responses go to (the simulator keys them by gpsi). */
  npPartitionOf(gpsi: string): number {
    const partitionMetadata = Array.from({ length: this.config.kafka.topicPartitions }, (_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata);
    return Partitioners.DefaultPartitioner()({ topic: this.config.topics.npResponses, partitionMetadata, message: { key: gpsi, value: null } });
  }

  /** Sends one CreatePortIn and waits up to `timeoutMs` for its reply; resolves with the reply's value. */
  async createPortIn(gpsi: string, overrides: Record<string, unknown>, timeoutMs: number): Promise<{ correlationId: string; reply: Record<string, unknown> }> {
    const correlationId = randomUUID();
    const pending = this.requester.awaitReply(correlationId, timeoutMs);
    await this.requester.dispatch('portinCommands', PORTIN('CreatePortIn'), createCommand(gpsi, overrides), {
      key: gpsi,
      correlationId,
      headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER },
    });
    return { correlationId, reply: (await pending).value };
  }

  /** Sends any port-in command keyed by `key` and waits up to `timeoutMs` for its reply. */
  async portinCommand(operation: string, value: object, key: string, timeoutMs: number): Promise<{ correlationId: string; reply: Record<string, unknown> }> {
    const correlationId = randomUUID();
    const pending = this.requester.awaitReply(correlationId, timeoutMs);
    await this.requester.dispatch('portinCommands', PORTIN(operation), value, { key, correlationId, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
    return { correlationId, reply: (await pending).value };
  }

  async portStatus(gpsi: string): Promise<string> {
    return (await this.redis.hget(`${this.config.redis.keyPrefix}{${gpsi}}:portin`, 'portStatus')) ?? '';
  }

  async subscriptionStatus(gpsi: string): Promise<string | undefined> {
    return (await this.subscriptions.status(gpsi))?.status;
  }

  portEvents(gpsi: string): Reply[] {
    return this.events.filter((e) => e.key === gpsi && e.recordName === PORTIN_EVENT_RECORD);
  }

  activationEvents(gpsi: string): Reply[] {
    return this.events.filter((e) => e.key === gpsi && e.recordName.endsWith('SubscriptionActivated'));
  }

  /** Distinct SubscriptionActivated event ids of a number (derived from the subscription: 1 however often it was sent). */
  activationIds(gpsi: string): number {
    return new Set(this.activationEvents(gpsi).map((e) => e.headers.ce_id)).size;
  }

  /** SubscriptionActivated event records of a number, copies under the same id included. */
  activationRecords(gpsi: string): number {
    return this.activationEvents(gpsi).length;
  }

  /**
   * Activations applied to a number's subscription, where they happen: the activation script appends one
   * entry (operation SubscriptionActivation) to the balance ledger in the step that makes it ACTIVE, so a
   * second application shows here whatever ids its event carries.
   */
  async activationsApplied(gpsi: string): Promise<number> {
    const ledger = await this.redis.lrange(subscriberKeys(this.config.redis.keyPrefix, gpsi).ledger, 0, -1);
    return ledger.filter((entry) => entry.split('|')[1] === ACTIVATION_OPERATION).length;
  }

  /** Whether the port's event of its shape's last status arrived. */
  settled(port: ShapedPort): boolean {
    return this.portEvents(port.gpsi).some((e) => e.value.portStatus === port.shape.statuses.at(-1));
  }

  /** Waits until every port settled and the group committed every NP response, then a second for late copies of events. */
  async waitSettled(ports: ShapedPort[], timeoutMs: number, brokers = this.config.kafka.brokers): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ports.every((p) => this.settled(p))) {
      if (Date.now() > deadline) throw new Error(`ports not settled: ${ports.filter((p) => !this.settled(p)).length}`);
      await sleep(100);
    }
    for (;;) {
      const progress = await groupProgress(brokers, this.config.groupId, this.config.topics.npResponses);
      if (progress.committed === progress.end) break;
      if (Date.now() > deadline) throw new Error(`NP responses not all committed: ${JSON.stringify(progress)}`);
      await sleep(250);
    }
    await sleep(1000); // a late copy of an event would arrive now
  }

  /**
   * Each port against a clean run of its shape: its status, its subscription's, one event id per status
   * change in order (an id names cause, request, version and status: a status change, its copies under the
   * same id aside), one activation applied when it completed — counted in the ledger, where it happens, not
   * by event id. Returns the ports that differ, the status changes, the activations applied (and those beyond one per port), the event
   * records of the ports (status changes and activations) and the extra records among them under an id
   * already seen.
   */
  async compareWithCleanRun(
    ports: ShapedPort[],
  ): Promise<{ problems: string[]; transitions: number; activationsApplied: number; doubleActivations: number; eventRecords: number; eventCopies: number }> {
    const problems: string[] = [];
    let transitions = 0;
    let activationsApplied = 0;
    let doubleActivations = 0;
    let eventRecords = 0;
    let eventCopies = 0;
    for (const p of ports) {
      const events = this.portEvents(p.gpsi);
      const ids = [...new Set(events.map((e) => e.headers.ce_id))];
      const statuses = ids.map((id) => events.find((e) => e.headers.ce_id === id)!.value.portStatus as string).filter((s) => s !== 'OPEN');
      const activations = await this.activationsApplied(p.gpsi);
      transitions += statuses.length;
      activationsApplied += activations;
      doubleActivations += Math.max(0, activations - 1);
      eventRecords += events.length + this.activationRecords(p.gpsi);
      eventCopies += events.length - ids.length + this.activationRecords(p.gpsi) - this.activationIds(p.gpsi);
      const got = { status: await this.portStatus(p.gpsi), subscription: await this.subscriptionStatus(p.gpsi), statuses, activations };
      const expected = { status: p.shape.statuses.at(-1), subscription: p.shape.subscription, statuses: p.shape.statuses, activations: p.shape.subscription === 'ACTIVE' ? 1 : 0 };
      if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`${p.shape.name} ${p.gpsi}: ${JSON.stringify(got)}`);
    }
    return { problems, transitions, activationsApplied, doubleActivations, eventRecords, eventCopies };
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.signal('SIGKILL')));
    await this.reader.stop();
    await this.requester.stop();
    await this.simulator?.stop();
    this.redis.disconnect();
  }
}

export interface Relayed {
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
}

/**
 * Relays the simulator's responses. Clean numbers: each once, in order. Faulty numbers: each response twice,
 * the one before it again in between (stale), and an OrderIdAssigned only after the response that follows it.
 */
export class Relay {
  private readonly history = new Map<string, Relayed[]>();
  private readonly heldOrderIds = new Map<string, Relayed>();
  delivered = 0;
  received = 0;
  /** Deliveries of a response already delivered: its second copy, and a stale earlier one sent again. */
  duplicated = 0;
  /** Deliveries out of the simulator's order: an order id held back past the next response, and a stale response after a newer one. */
  reordered = 0;

  private constructor(
    private readonly consumer: Consumer,
    private readonly producer: Producer,
  ) {}

  static async start(config: ServiceConfig, staging: string, faulty: (gpsi: string) => boolean): Promise<Relay> {
    const kafka = kafkaClient(config.kafka.brokers, 'faults-np-relay');
    const relay = new Relay(kafka.consumer({ maxWaitTimeInMs: 500, groupId: `relay-${randomUUID()}`, allowAutoTopicCreation: false }), kafka.producer({ allowAutoTopicCreation: false }));
    await relay.producer.connect();
    await relay.consumer.connect();
    await relay.consumer.subscribe({ topics: [staging], fromBeginning: true });
    const joined = new Promise<void>((resolve) => relay.consumer.on(relay.consumer.events.GROUP_JOIN, () => resolve()));
    await relay.consumer.run({
      eachMessage: async ({ message }) => {
        relay.received++;
        const record = { key: message.key, value: message.value, headers: message.headers };
        const gpsi = message.key!.toString();
        await relay.deliver(config.topics.npResponses, faulty(gpsi) ? relay.faultyDelivery(gpsi, record) : [record]);
      },
    });
    await joined;
    return relay;
  }

  private faultyDelivery(gpsi: string, record: Relayed): Relayed[] {
    const earlier = this.history.get(gpsi) ?? [];
    this.history.set(gpsi, [...earlier, record]);
    if (earlier.length === 0) {
      // the first response for a number is its OrderIdAssigned: hold it back until the next one
      this.heldOrderIds.set(gpsi, record);
      return [];
    }
    const held = this.heldOrderIds.get(gpsi);
    this.heldOrderIds.delete(gpsi);
    const stale = earlier[earlier.length - 1];
    this.duplicated += 1 + (stale ? 1 : 0);
    this.reordered += (held ? 1 : 0) + (stale ? 1 : 0);
    return [record, ...(held ? [held] : []), ...(stale ? [stale] : []), record];
  }

  private async deliver(topic: string, records: Relayed[]): Promise<void> {
    if (records.length === 0) return;
    await this.producer.send({ topic, acks: -1, messages: records.map((r) => ({ key: r.key, value: r.value, headers: r.headers })) });
    this.delivered += records.length;
  }

  /** Delivers the OrderIdAssigned of ports that got no further response (they stay OPEN). */
  async flushHeld(topic: string): Promise<void> {
    const held = [...this.heldOrderIds.values()];
    this.heldOrderIds.clear();
    this.duplicated += held.length;
    await this.deliver(
      topic,
      held.flatMap((r) => [r, r]),
    );
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.producer.disconnect();
  }
}
