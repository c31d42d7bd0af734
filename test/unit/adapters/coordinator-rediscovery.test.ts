import { connectedCoordinator, installCoordinatorRediscovery, type CoordinatorBroker, type CoordinatorHolder } from '../../../src/adapters/kafka/coordinator-rediscovery';

const broker = (name: string, connected = true) => ({ name, connected, isConnected() { return this.connected; } });

function holderWith(held: (CoordinatorBroker & { name: string }) | null, found = broker('new coordinator')) {
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

  it('makes one lookup for callers that ask at once (a commit and a heartbeat)', async () => {
    const { holder, lookups, found, release } = holderWith(broker('dead', false));
    const asked = [connectedCoordinator(holder), connectedCoordinator(holder)];
    release();
    expect(await Promise.all(asked)).toEqual([found, found]);
    expect(lookups).toHaveLength(1);
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

describe('installCoordinatorRediscovery', () => {
  it("replaces kafkajs's offset manager and consumer group methods once, whatever the number of calls", () => {
    const offsetManager = require('kafkajs/src/consumer/offsetManager').prototype;
    const consumerGroup = require('kafkajs/src/consumer/consumerGroup').prototype;
    const before = [offsetManager.getCoordinator, consumerGroup.heartbeat];
    installCoordinatorRediscovery();
    const patched = [offsetManager.getCoordinator, consumerGroup.heartbeat];
    installCoordinatorRediscovery();
    expect(patched[0]).not.toBe(before[0]);
    expect(patched[1]).not.toBe(before[1]);
    expect([offsetManager.getCoordinator, consumerGroup.heartbeat]).toEqual(patched);
  });
});
