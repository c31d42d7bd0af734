import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import type { ServiceConfig } from '../../../src/config';
import { loadNpSimulatorConfig } from '../../../src/config';
import { createBalanceComponents } from '../../../src/app/balance';
import { loadCatalog } from '../../../src/app/service';
import { createRedisClient, type RedisClient } from '../../../src/adapters/redis/client';
import type { SubscriptionStore } from '../../../src/adapters/redis/subscription-store';
import { PORTIN_EVENT_RECORD } from '../../../src/domain/portin/records';
import { startNpSimulator, type NpSimulator } from '../../../src/simulator/np-simulator';
import { HEADER } from '../../../src/worker/envelope';
import { envFor, testLogger, TestRequester, TopicReader, type Reply } from '../../support/harness';
import { createCommand, PORTIN } from '../../support/portin/journey';
import { WorkerProcess } from '../../support/worker-process';
import { FAULT_CUSTOMER, partnerToken, workerEnv } from './fault-config';

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
    private readonly requester: TestRequester,
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

  async startWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = await WorkerProcess.start({ ...workerEnv(this.config), ...env }, name);
    this.workers.push(worker);
    return worker;
  }

  /** The simulator answers every NP request at 100,000 times real speed, on the service's responses topic. */
  async startSimulator(): Promise<void> {
    const { config } = this;
    this.simulator = await startNpSimulator(
      loadNpSimulatorConfig({ ...process.env, ...envFor(config), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: '100000' }),
      { log: testLogger(config) },
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

  async portStatus(gpsi: string): Promise<string> {
    return (await this.redis.hget(`${this.config.redis.keyPrefix}{${gpsi}}:portin`, 'portStatus')) ?? '';
  }

  async subscriptionStatus(gpsi: string): Promise<string | undefined> {
    return (await this.subscriptions.status(gpsi))?.status;
  }

  portEvents(gpsi: string): Reply[] {
    return this.events.filter((e) => e.key === gpsi && e.recordName === PORTIN_EVENT_RECORD);
  }

  /** Distinct SubscriptionActivated event ids of a number. */
  activationIds(gpsi: string): number {
    return new Set(this.events.filter((e) => e.key === gpsi && e.recordName.endsWith('SubscriptionActivated')).map((e) => e.headers.ce_id)).size;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.signal('SIGKILL')));
    await this.reader.stop();
    await this.requester.stop();
    await this.simulator?.stop();
    this.redis.disconnect();
  }
}
