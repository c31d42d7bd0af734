/**
 * kafkajs 2.2.4 finds a group's coordinator when the member joins and keeps it. When that broker dies,
 * the offset manager looks the dead node id up again on every commit ("Broker N not found in the cached
 * metadata" once it has left the metadata) and the heartbeats keep connecting to it, until the consumer
 * exhausts its retries (about 18 s), restarts and joins as a new member, which waits out the old member's
 * session and rebalances the group: about 30 s without a commit. A survivor has loaded the group, its
 * members and generation with it, within seconds of the broker being fenced. Here commits and heartbeats
 * ask the cluster for the group's coordinator again whenever the one they hold is disconnected or answers
 * that it no longer coordinates the group, as the Java client marks its coordinator unknown then
 * (test/faults/kafka-outage.test.ts). kafkajs took that answer for a rebalance and re-joined the group,
 * which stops every member's fetching for a round; here a heartbeat so answered is skipped (the next one
 * goes to the new coordinator) and a commit is sent there again, with a backoff while it is still loading.
 */

/** The parts of kafkajs's Broker, Cluster, ConsumerGroup and OffsetManager this file touches. */
export interface CoordinatorBroker {
  isConnected(): boolean;
  nodeId?: number | null;
}
export interface CoordinatorHolder {
  coordinator: CoordinatorBroker | null;
  groupId: string;
  cluster: { findGroupCoordinator(request: { groupId: string }): Promise<CoordinatorBroker> };
}

const lookups = new WeakMap<CoordinatorHolder, Promise<CoordinatorBroker>>();
/** Holders whose coordinator said it no longer coordinates the group: looked up again though connected. */
const moved = new WeakSet<CoordinatorHolder>();

/** The answers of a broker that does not (or not yet) coordinate the group, kafkajs's error types. */
const COORDINATOR_MOVED = new Set(['NOT_COORDINATOR_FOR_GROUP', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'GROUP_LOAD_IN_PROGRESS']);
const coordinatorMoved = (error: unknown): boolean => COORDINATOR_MOVED.has((error as { type?: string } | null)?.type ?? '');

/**
 * The holder's coordinator, found again (one lookup for concurrent callers) when it is disconnected or
 * moved; `onMove` hears of a lookup that found another node, once per lookup.
 */
export async function connectedCoordinator(holder: CoordinatorHolder, onMove?: (from: number | null | undefined, to: number | null | undefined) => void): Promise<CoordinatorBroker> {
  const held = holder.coordinator;
  if (held?.isConnected() && !moved.has(holder)) return held;
  let lookup = lookups.get(holder);
  if (!lookup) {
    lookup = holder.cluster
      .findGroupCoordinator({ groupId: holder.groupId })
      .then((found) => {
        // only a found coordinator clears the mark: after a failed lookup the held one is still not it
        moved.delete(holder);
        if (found.nodeId !== held?.nodeId) onMove?.(held?.nodeId, found.nodeId);
        return found;
      })
      .finally(() => lookups.delete(holder));
    lookups.set(holder, lookup);
  }
  const found = await lookup;
  holder.coordinator = found;
  return found;
}

/**
 * The waits between a commit's tries while the coordinator found answers that it does not (yet) coordinate
 * the group; the first retry goes at once. A survivor is named by the metadata a moment before it has taken
 * the group over (in the fault suite: NOT_COORDINATOR twice, then GROUP_LOAD_IN_PROGRESS for ≈ 0.1 s), and
 * the Java client retries the commit with a backoff then. About 5.5 s in all, inside the 10 s session: past
 * it the error goes to kafkajs, which re-joins.
 */
export const COMMIT_RETRY_BACKOFF_MS: readonly number[] = [100, 200, 400, 800, 1000, 1000, 1000, 1000];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `call`, tried again through a coordinator found again while its answers say the coordinator moved. */
export async function retriedWhileMoved<T>(holder: CoordinatorHolder, call: () => Promise<T>, backoffMs: readonly number[] = COMMIT_RETRY_BACKOFF_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await markingMoved(holder, call);
    } catch (error) {
      if (!coordinatorMoved(error) || attempt > backoffMs.length) throw error;
      // the first retry goes at once: a coordinator that moved long ago is found moved on the first answer
      if (attempt > 0) await sleep(backoffMs[attempt - 1]!);
    }
  }
}

/** `heartbeat`, skipped when the coordinator moved: the member is still the group's, and the next one goes to the new coordinator. */
export async function heartbeatUnlessMoved(holder: CoordinatorHolder, heartbeat: () => Promise<unknown>): Promise<void> {
  try {
    await markingMoved(holder, heartbeat);
  } catch (error) {
    if (!coordinatorMoved(error)) throw error;
  }
}

async function markingMoved<T>(holder: CoordinatorHolder, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (coordinatorMoved(error)) moved.add(holder);
    throw error;
  }
}

type Method = (this: CoordinatorHolder & { memberId?: string | null; logger?: KafkajsLogger }, ...args: unknown[]) => Promise<unknown>;
interface KafkajsLogger {
  warn(message: string, extra?: Record<string, unknown>): void;
}
interface Prototype {
  getCoordinator?: Method;
  commitOffsets?: Method;
  heartbeat?: Method;
}

const INSTALLED = Symbol.for('wholesale.coordinatorRediscovery');

function prototypeOf(module: string, ...methods: (keyof Prototype)[]): Prototype & { [INSTALLED]?: true } {
  // kafkajs's internals have no typed entry point; these are the module instances kafkajs itself loads
  const prototype = (require(module) as { prototype?: Prototype }).prototype;
  const missing = methods.filter((method) => typeof prototype?.[method] !== 'function');
  if (!prototype || missing.length > 0) throw new Error(`kafkajs internals changed: ${module} has no ${missing.join('(), ')}(); see src/adapters/kafka/coordinator-rediscovery.ts`);
  return prototype;
}

/** Patches kafkajs's offset manager and consumer group once per process; later calls do nothing. */
export function installCoordinatorRediscovery(): void {
  const offsetManager = prototypeOf('kafkajs/src/consumer/offsetManager', 'getCoordinator', 'commitOffsets');
  if (!offsetManager[INSTALLED]) {
    const commitOffsets = offsetManager.commitOffsets!;
    // every commit and offset fetch of the member goes through this
    offsetManager.getCoordinator = async function getCoordinator() {
      return connectedCoordinator(this);
    };
    offsetManager.commitOffsets = async function commitOffsetsToCoordinator(...args: unknown[]) {
      return retriedWhileMoved(this, () => commitOffsets.apply(this, args));
    };
    offsetManager[INSTALLED] = true;
  }
  const consumerGroup = prototypeOf('kafkajs/src/consumer/consumerGroup', 'heartbeat');
  if (!consumerGroup[INSTALLED]) {
    const heartbeat = consumerGroup.heartbeat!;
    // kafkajs's shared heartbeat sends to this.coordinator, so the held one is replaced before it runs
    consumerGroup.heartbeat = async function heartbeatToConnectedCoordinator(...args: unknown[]) {
      if (!this.memberId || !this.coordinator) return heartbeat.apply(this, args);
      // once per move and member, in the program's log through kafkajs's logger (WARN and above reach it)
      await connectedCoordinator(this, (from, to) => this.logger?.warn('The group coordinator moved; heartbeats and commits follow it', { groupId: this.groupId, memberId: this.memberId, from, to }));
      return heartbeatUnlessMoved(this, () => heartbeat.apply(this, args));
    };
    consumerGroup[INSTALLED] = true;
  }
}
