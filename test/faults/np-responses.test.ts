import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisClient } from '../../src/adapters/redis/client';
import { type ServiceConfig } from '../../src/app/config';
import { loadNpSimulatorConfig } from '../../dev/np-simulator/config';
import type { RunningService } from '../../src/app/service';
import { createBalanceComponents } from '../../src/app/balance';
import { startNpSimulator, type NpSimulator } from '../../dev/np-simulator/np-simulator';
import { HEADER } from '../../src/contract/headers';
import { envFor, startTestService, testLogger, TestRequester, TopicReader, type Reply } from '../support/harness';
import { createCommand, gpsiEndingIn, PORTIN } from '../support/portin/journey';
import { FAULT_CUSTOMER, faultConfig, partnerToken } from './support/fault-config';
import { Relay } from './support/np-rig';
import { report, seconds } from './support/report';
import { createTopicsOnCluster, groupProgress, kafkaClient } from './support/topics';

jest.setTimeout(240_000); // jest ignores testTimeout in a project's configuration

/**
 * Issue 7, item 7: the NP responses of two sets of ports with the same shapes — one delivered cleanly once,
 * one delivered with every response repeated, a stale older response after each newer one, and each order
 * id held back until after the port's next response — and then the whole responses topic replayed from its
 * beginning to the worker group. Every port must end in the same state as its clean twin, and the replay
 * must change nothing. The NP simulator answers on a staging topic; this test relays its responses to the
 * service's responses topic, cleanly or not.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Shape {
  name: string;
  suffix: string;
  pin?: string;
  /** The status the port settles in; with `update`, after an UpdatePortIn at RESOLUTION_REQUIRED. */
  settles: { status: string; version: string };
  update?: boolean;
}

const SHAPES: Shape[] = [
  { name: 'completed', suffix: '21', settles: { status: 'COMPLETED', version: '1' } },
  { name: 'delayed, then completed', suffix: '14', settles: { status: 'COMPLETED', version: '1' } },
  { name: 'rejected', suffix: '13', settles: { status: 'REJECTED', version: '1' } },
  { name: 'resolution required, updated, completed', suffix: '22', pin: '0000', settles: { status: 'COMPLETED', version: '2' }, update: true },
  { name: 'no answer', suffix: '00', settles: { status: 'OPEN', version: '1' } },
];
const PER_SHAPE = 4;

interface Port {
  shape: Shape;
  gpsi: string;
  partnerTransactionId: string;
  clean: boolean;
}

/** Deletes the recorded outcomes of the port-ins and of their subscriptions' changes; returns how many of each. */
async function forgetOutcomes(redis: RedisClient, prefix: string): Promise<{ portIn: number; subscription: number }> {
  const deletedBy = async (pattern: string) => {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await (redis as Redis).scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  };
  return { portIn: await deletedBy(`${prefix}*:portin:outcome:*`), subscription: await deletedBy(`${prefix}*:done:*`) };
}

describe('NP responses duplicated, reordered and replayed from the beginning', () => {
  let config: ServiceConfig;
  let service: RunningService | undefined;
  let simulator: NpSimulator | undefined;
  let relay: Relay | undefined;
  let requester: TestRequester | undefined;
  let eventsReader: TopicReader | undefined;

  afterAll(async () => {
    await eventsReader?.stop();
    await requester?.stop();
    await relay?.stop();
    await simulator?.stop();
    await service?.stop();
  });

  it('every port ends as its cleanly delivered twin, and a replay of the whole topic changes nothing', async () => {
    const began = Date.now();
    config = await faultConfig();
    const staging = `${config.topics.npResponses}.staging`;
    await createTopicsOnCluster(config, [staging]);
    service = await startTestService(config);
    simulator = await startNpSimulator(
      loadNpSimulatorConfig({ ...process.env, ...envFor(config), TOPIC_NP_RESPONSES: staging, NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: '100000' }),
      { log: testLogger(config) },
    );
    await simulator.joined;
    const ports: Port[] = SHAPES.flatMap((shape) =>
      Array.from({ length: 2 * PER_SHAPE }, (_, i) => ({ shape, gpsi: gpsiEndingIn(shape.suffix), partnerTransactionId: `PTX-${randomUUID().slice(0, 12)}`, clean: i % 2 === 0 })),
    );
    const faultyNumbers = new Set(ports.filter((p) => !p.clean).map((p) => p.gpsi));
    relay = await Relay.start(config, staging, (gpsi) => faultyNumbers.has(gpsi));
    requester = await TestRequester.start(config, undefined, { tokenProvider: partnerToken });
    const events: Reply[] = [];
    eventsReader = await TopicReader.start(config, [config.topics.portinEvents], (event) => events.push(event));
    const send = (operation: string, value: object) =>
      requester!.send('portinCommands', PORTIN(operation), value, { key: (value as { gpsi: string }).gpsi, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
    const eventsOf = (gpsi: string) => events.filter((e) => e.key === gpsi);
    const reached = (port: Port, status: string, version: string) => eventsOf(port.gpsi).some((e) => e.value.portStatus === status && e.value.portOrderVersion === version);
    const waitFor = async (what: string, done: () => boolean, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(100);
      }
    };

    const created = await Promise.all(
      ports.map((p) => {
        const command = createCommand(p.gpsi, { partnerTransactionId: p.partnerTransactionId });
        if (p.shape.pin) command.portInfo = { ...command.portInfo, pwdPin: p.shape.pin };
        return send('CreatePortIn', command);
      }),
    );
    expect(created.map((r) => r.value.status)).toEqual(ports.map(() => 'Success'));
    for (const port of ports.filter((p) => p.shape.update)) {
      await waitFor(`${port.gpsi} RESOLUTION_REQUIRED`, () => reached(port, 'RESOLUTION_REQUIRED', '1'));
      const update = await send('UpdatePortIn', { partnerTransactionId: port.partnerTransactionId, gpsi: port.gpsi, updatePortInfo: { pwdPin: '2468' } });
      expect(update.value).toMatchObject({ status: 'Success', portOrderVersion: '2' });
    }
    await waitFor('every port settled', () => ports.every((p) => reached(p, p.shape.settles.status, p.shape.settles.version)));
    // the ports left OPEN got only their order id, which the relay held back for the faulty ones
    await sleep(1000);
    await relay.flushHeld(config.topics.npResponses);
    const drained = async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const progress = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
        if (progress.committed === progress.end) return progress;
        if (Date.now() > deadline) throw new Error(`NP responses not all consumed: ${JSON.stringify(progress)}`);
        await sleep(250);
      }
    };
    await drained();

    // the subscription store over the Redis client of the service running now (it is restarted below)
    const subscriptions = () => createBalanceComponents({ config, catalog: service!.catalog, redis: service!.redis }).subscriptions;
    const stateOf = async (port: Port) => {
      const reply = await send('QueryPortIn', { gpsi: port.gpsi });
      const {
        gpsi,
        partnerTransactionId,
        portOrderId,
        oldNetworkServiceProvider,
        oldLocalServiceProvider,
        desiredDueDate,
        confirmedDueDate,
        portLastUpdateDate,
        portOriginalSubmissionDate,
        ...rest
      } = reply.value;
      const eventIds = [...new Set(eventsOf(port.gpsi).map((e) => e.headers.ce_id))];
      const statuses = eventIds.map((id) => eventsOf(port.gpsi).find((e) => e.headers.ce_id === id)!).map((e) => `${e.value.portStatus}/v${e.value.portOrderVersion}`);
      return {
        ...rest,
        portOrderId: typeof portOrderId === 'string',
        oldProviders: typeof oldNetworkServiceProvider === 'string' && typeof oldLocalServiceProvider === 'string',
        confirmedDueDate: typeof confirmedDueDate === 'string',
        subscription: (await subscriptions().status(port.gpsi))?.status,
        statuses,
      };
    };
    const snapshot = async () => new Map(await Promise.all(ports.map(async (p) => [p.gpsi, await stateOf(p)] as const)));
    const compareTwins = (states: Map<string, Awaited<ReturnType<typeof stateOf>>>) =>
      SHAPES.flatMap((shape) => {
        const clean = ports.filter((p) => p.shape === shape && p.clean).map((p) => states.get(p.gpsi));
        const faulty = ports.filter((p) => p.shape === shape && !p.clean).map((p) => states.get(p.gpsi));
        return faulty
          .filter((state) => JSON.stringify(state) !== JSON.stringify(clean[0]))
          .map((state) => `${shape.name}: ${JSON.stringify(state)} ≠ ${JSON.stringify(clean[0])}`)
          .concat(clean.filter((state) => JSON.stringify(state) !== JSON.stringify(clean[0])).map((state) => `${shape.name} (clean twins differ): ${JSON.stringify(state)}`));
      });
    const afterDelivery = await snapshot();
    const deliveryMismatches = compareTwins(afterDelivery);
    const distinctEvents = () => new Set(events.map((e) => e.headers.ce_id)).size;
    const eventsBeforeReplay = distinctEvents();
    const eventRecordsBeforeReplay = events.length;
    const deliveredBeforeReplay = relay.delivered;

    // replay: the worker group reads the whole NP responses topic again from its beginning, after the
    // recorded outcomes are gone (as after IDEMPOTENCY_TTL_SECONDS): what keeps the ports as they are is then
    // the lifecycle's refusal of stale and repeated responses, not the replay of a recorded outcome
    const forgotten = await forgetOutcomes(service.redis, config.redis.keyPrefix);
    const replayBegan = Date.now();
    await service.stop();
    service = undefined;
    const admin = kafkaClient(config.kafka.brokers).admin();
    await admin.connect();
    const { end } = await groupProgress(config.kafka.brokers, config.groupId, config.topics.npResponses);
    await admin.resetOffsets({ groupId: config.groupId, topic: config.topics.npResponses, earliest: true });
    await admin.disconnect();
    service = await startTestService(config);
    await drained();
    const replayMs = Date.now() - replayBegan;
    await sleep(1000); // events of a replay (same ids) would arrive now
    const afterReplay = await snapshot();
    // with the outcomes gone nothing is replayed from a record: a stale response publishes nothing at all (a port
    // walked through its history again would end where it was, its events under the same ids, but republished)
    const eventRecordsOfReplay = events.length - eventRecordsBeforeReplay;
    const replayChanges = ports.filter((p) => JSON.stringify(afterReplay.get(p.gpsi)) !== JSON.stringify(afterDelivery.get(p.gpsi))).map((p) => p.gpsi);

    const cleanChanges = ports.filter((p) => p.clean).reduce((sum, p) => sum + afterDelivery.get(p.gpsi)!.statuses.length, 0);
    const faultyChanges = ports.filter((p) => !p.clean).reduce((sum, p) => sum + afterDelivery.get(p.gpsi)!.statuses.length, 0);
    report(
      'NP responses duplicated, reordered, replayed',
      {
        sent: deliveredBeforeReplay + end,
        replied: relay.received,
        applied: faultyChanges,
        duplicates: Math.max(0, faultyChanges - cleanChanges) + (distinctEvents() - eventsBeforeReplay),
        lost: deliveryMismatches.length + replayChanges.length,
        copies: { events: events.length - distinctEvents() },
      },
      [
        `${ports.length} ports in ${SHAPES.length} shapes, half clean (${cleanChanges} status changes), half faulty`,
        `sent = ${deliveredBeforeReplay} deliveries of ${relay.received} simulator responses + ${end} replayed; replied = responses the simulator produced; applied = status changes of the faulty ports`,
        `replay of the whole topic ${(replayMs / 1000).toFixed(1)} s after the recorded outcomes were deleted (${forgotten.portIn} of port-ins, ${forgotten.subscription} of subscriptions), new event ids after it ${distinctEvents() - eventsBeforeReplay}, event records it published ${eventRecordsOfReplay}, ports changed by it ${replayChanges.length}`,
        seconds(began),
      ],
    );
    expect(deliveryMismatches).toEqual([]);
    expect(faultyChanges).toBe(cleanChanges);
    // the replay ran outside the outcome window: the outcome of every status change was gone
    expect(forgotten.portIn).toBeGreaterThanOrEqual(cleanChanges + faultyChanges);
    expect(replayChanges).toEqual([]);
    expect(distinctEvents()).toBe(eventsBeforeReplay);
    expect(eventRecordsOfReplay).toBe(0);
    expect(deliveredBeforeReplay).toBeGreaterThan(relay.received); // the faulty half really was delivered more than once
  });
});
