import { consumerHeartbeatChannel, ProtocolError, ResponseError, type Consumer } from '@platformatic/kafka';
import { watchInstanceFenced, type InstanceFencedError } from '../../../src/adapters/kafka/fenced-instance';

/** A consumer as far as the watch reads it: its group, and leaveGroup (recorded, no broker). */
const consumerOf = (groupId: string) => {
  const leaves: boolean[] = [];
  const consumer = { groupId, leaveGroup: (force: boolean, done: () => void) => (leaves.push(force), done()) } as unknown as Consumer<Buffer, Buffer, Buffer, Buffer>;
  return { consumer, leaves };
};

const HEARTBEAT = 12;
/** A heartbeat's failure as the client publishes it on its diagnostics channel, before acting on it. */
const heartbeatFailed = (client: unknown, code: number) =>
  consumerHeartbeatChannel.error.publish({ client, operation: 'heartbeat', operationId: 0n, error: new ResponseError(HEARTBEAT, 4, { '': [code, null] }, {}) });
const FENCED_INSTANCE_ID = 82;
const REBALANCE_IN_PROGRESS = 27;

describe('a static member whose id another member took', () => {
  it('leaves at once (no rejoin under the id) and reports once, naming KAFKA_GROUP_INSTANCE_ID; other errors and other consumers are not its concern', () => {
    const mine = consumerOf('workers');
    const other = consumerOf('workers');
    const reported: InstanceFencedError[] = [];
    const unwatch = watchInstanceFenced(mine.consumer, 'worker-0', (error) => reported.push(error));
    try {
      heartbeatFailed(mine.consumer, REBALANCE_IN_PROGRESS); // a rebalance: the client rejoins, as it should
      heartbeatFailed(other.consumer, FENCED_INSTANCE_ID);
      expect([reported.length, mine.leaves]).toEqual([0, []]);
      heartbeatFailed(mine.consumer, FENCED_INSTANCE_ID);
      heartbeatFailed(mine.consumer, FENCED_INSTANCE_ID);
      expect(mine.leaves).toEqual([true]);
      expect(reported.map((e) => e.message)).toEqual([
        'KAFKA_GROUP_INSTANCE_ID worker-0 is in use by another worker of group workers: Kafka fenced this one, which stops. Give every worker an id of its own',
      ]);
    } finally {
      unwatch();
    }
    heartbeatFailed(mine.consumer, FENCED_INSTANCE_ID);
    expect([reported.length, mine.leaves]).toEqual([1, [true]]); // unwatched: nothing more
    // the client's own reading of the error, why this watch exists: when a release reads it as fatal, this fails
    expect(new ProtocolError('FENCED_INSTANCE_ID').needsRejoin).toBe(true);
  });
});
