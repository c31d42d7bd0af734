import { connectedCoordinator, heartbeatUnlessMoved, installCoordinatorRediscovery, retriedWhileMoved, type CoordinatorBroker, type CoordinatorHolder } from '../../../src/adapters/kafka/coordinator-rediscovery';

const broker = (name: string, connected = true) => ({ name, connected, isConnected() { return this.connected; } });

function holderWith(held: (CoordinatorBroker & { name: string }) | null, found: CoordinatorBroker & { name: string } = broker('new coordinator')) {
  const lookups: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const holder: CoordinatorHolder = {
    coordinator: held,
    groupId: 'workers',
    cluster: {
      findGroupCoordinator: async ({ groupId }) => {
        lookups.push(groupId);
        await gate;
        return found;
      },
    },
  };
  return { holder, lookups, found, release };
}

describe('connectedCoordinator', () => {
  it('keeps the coordinator held while it is connected', async () => {
    const held = broker('held');
    const { holder, lookups } = holderWith(held);
    await expect(connectedCoordinator(holder)).resolves.toBe(held);
    expect(lookups).toEqual([]);
  });

  it('asks the cluster for the group coordinator again once the held one is disconnected, and holds the answer', async () => {
    const { holder, lookups, found, release } = holderWith(broker('dead', false));
    release();
    await expect(connectedCoordinator(holder)).resolves.toBe(found);
    expect(holder.coordinator).toBe(found);
    expect(lookups).toEqual(['workers']);
  });

  it('makes one lookup for callers that ask at once, and tells of the move once', async () => {
    const { holder, lookups, found, release } = holderWith(Object.assign(broker('dead', false), { nodeId: 3 }), Object.assign(broker('new coordinator'), { nodeId: 1 }));
    const moves: unknown[] = [];
    const onMove = (from: unknown, to: unknown) => moves.push([from, to]);
    const asked = [connectedCoordinator(holder, onMove), connectedCoordinator(holder, onMove)];
    release();
    expect(await Promise.all(asked)).toEqual([found, found]);
    expect(lookups).toHaveLength(1);
    expect(moves).toEqual([[3, 1]]);
  });

  it('tells of no move when the lookup finds the same node (a connection closed while idle)', async () => {
    const { holder, release } = holderWith(Object.assign(broker('closed', false), { nodeId: 2 }), Object.assign(broker('reconnected'), { nodeId: 2 }));
    const moves: unknown[] = [];
    release();
    await connectedCoordinator(holder, (from, to) => moves.push([from, to]));
    expect(moves).toEqual([]);
  });

  it('looks up again after a failed lookup', async () => {
    const { holder, lookups, found, release } = holderWith(broker('dead', false));
    let failures = 1;
    const find = holder.cluster.findGroupCoordinator;
    holder.cluster.findGroupCoordinator = async (request) => (failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : find(request));
    release();
    await expect(connectedCoordinator(holder)).rejects.toThrow('ECONNREFUSED');
    await expect(connectedCoordinator(holder)).resolves.toBe(found);
    expect(lookups).toHaveLength(1);
  });
});

/** kafkajs's error for a broker's answer, as its protocol layer builds it: `type` names the Kafka error code. */
const kafkaError = (type: string) => Object.assign(new Error(type), { type });

describe('a coordinator that answers it no longer coordinates the group', () => {
  /** A call that goes to the holder's coordinator, as kafkajs's commit and heartbeat do, answered by `answer`. */
  const toCoordinator = (holder: CoordinatorHolder, answer: (coordinator: string) => unknown) => {
    const sentTo: string[] = [];
    const call = async () => {
      const coordinator = (await connectedCoordinator(holder)) as CoordinatorBroker & { name: string };
      sentTo.push(coordinator.name);
      const answered = answer(coordinator.name);
      if (answered instanceof Error) throw answered;
      return answered;
    };
    return { call, sentTo };
  };

  it('a commit is sent once more, to the coordinator found again', async () => {
    const { holder, release } = holderWith(broker('old coordinator'));
    release();
    const { call, sentTo } = toCoordinator(holder, (name) => (name === 'old coordinator' ? kafkaError('NOT_COORDINATOR_FOR_GROUP') : 'committed'));
    await expect(retriedWhileMoved(holder, call)).resolves.toBe('committed');
    expect(sentTo).toEqual(['old coordinator', 'new coordinator']);
  });

  it('a commit is tried again while the coordinator found has not taken the group over yet, and goes through once it has', async () => {
    // as the survivor answered in the fault suite: named by the metadata before it knew, then loading the group
    const { holder, lookups, release } = holderWith(broker('old coordinator'));
    release();
    const answers = ['NOT_COORDINATOR_FOR_GROUP', 'NOT_COORDINATOR_FOR_GROUP', 'GROUP_LOAD_IN_PROGRESS', 'GROUP_LOAD_IN_PROGRESS'];
    const { call, sentTo } = toCoordinator(holder, () => (answers.length > 0 ? kafkaError(answers.shift()!) : 'committed'));
    await expect(retriedWhileMoved(holder, call, [1, 1, 1, 1])).resolves.toBe('committed');
    expect(sentTo).toEqual(['old coordinator', 'new coordinator', 'new coordinator', 'new coordinator', 'new coordinator']);
    expect(lookups).toHaveLength(4);
  });

  it('a commit fails once the backoff is spent, and the next call looks the coordinator up again', async () => {
    const { holder, lookups, release } = holderWith(broker('old coordinator'));
    release();
    const { call, sentTo } = toCoordinator(holder, () => kafkaError('GROUP_LOAD_IN_PROGRESS'));
    await expect(retriedWhileMoved(holder, call, [1])).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(sentTo).toEqual(['old coordinator', 'new coordinator', 'new coordinator']);
    await expect(retriedWhileMoved(holder, call, [])).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(sentTo).toHaveLength(5);
    expect(lookups).toHaveLength(4);
  });

  it('waits the schedule between tries after the first, which goes at once', async () => {
    jest.useFakeTimers();
    try {
      const { holder, release } = holderWith(broker('old coordinator'));
      release();
      let tries = 0;
      const { call } = toCoordinator(holder, () => (++tries < 4 ? kafkaError('GROUP_LOAD_IN_PROGRESS') : 'committed'));
      const committed = retriedWhileMoved(holder, call, [60, 120, 500]);
      await jest.advanceTimersByTimeAsync(0);
      expect(tries).toBe(2); // the first retry went at once
      await jest.advanceTimersByTimeAsync(59);
      expect(tries).toBe(2);
      await jest.advanceTimersByTimeAsync(1);
      expect(tries).toBe(3);
      await jest.advanceTimersByTimeAsync(119);
      expect(tries).toBe(3);
      await jest.advanceTimersByTimeAsync(1);
      await expect(committed).resolves.toBe('committed');
      expect(tries).toBe(4);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a coordinator that said so is looked up again after a lookup that failed, not used again', async () => {
    const { holder, release } = holderWith(broker('old coordinator'));
    let failures = 1;
    const find = holder.cluster.findGroupCoordinator;
    holder.cluster.findGroupCoordinator = async (request) => (failures-- > 0 ? Promise.reject(new Error('coordinator not available')) : find(request));
    release();
    const { call, sentTo } = toCoordinator(holder, (name) => (name === 'old coordinator' ? kafkaError('NOT_COORDINATOR_FOR_GROUP') : 'committed'));
    await expect(retriedWhileMoved(holder, call)).rejects.toThrow('coordinator not available');
    await expect(retriedWhileMoved(holder, call)).resolves.toBe('committed');
    expect(sentTo).toEqual(['old coordinator', 'new coordinator']);
  });

  it('other errors pass through once, without a lookup', async () => {
    const { holder, lookups, release } = holderWith(broker('coordinator'));
    release();
    const { call, sentTo } = toCoordinator(holder, () => kafkaError('REBALANCE_IN_PROGRESS'));
    await expect(retriedWhileMoved(holder, call)).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    await expect(heartbeatUnlessMoved(holder, call)).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    expect(sentTo).toEqual(['coordinator', 'coordinator']);
    expect(lookups).toEqual([]);
  });

  it('a heartbeat so answered is skipped (no rebalance), and the next goes to the coordinator found again', async () => {
    const { holder, release } = holderWith(broker('old coordinator'));
    release();
    const { call, sentTo } = toCoordinator(holder, (name) => (name === 'old coordinator' ? kafkaError('NOT_COORDINATOR_FOR_GROUP') : undefined));
    await expect(heartbeatUnlessMoved(holder, call)).resolves.toBeUndefined();
    await expect(heartbeatUnlessMoved(holder, call)).resolves.toBeUndefined();
    expect(sentTo).toEqual(['old coordinator', 'new coordinator']);
  });
});

describe('installCoordinatorRediscovery', () => {
  it("replaces kafkajs's offset manager and consumer group methods once, whatever the number of calls", () => {
    const offsetManager = require('kafkajs/src/consumer/offsetManager').prototype;
    const consumerGroup = require('kafkajs/src/consumer/consumerGroup').prototype;
    const methods = () => [offsetManager.getCoordinator, offsetManager.commitOffsets, consumerGroup.heartbeat];
    const before = methods();
    installCoordinatorRediscovery();
    const patched = methods();
    installCoordinatorRediscovery();
    patched.forEach((method, i) => expect(method).not.toBe(before[i]));
    expect(methods()).toEqual(patched);
  });
});
