import { EventEmitter } from 'node:events';
import { lagOf } from '../../../src/adapters/kafka/consumer-lag';
import { ConsumerStateTracker } from '../../../src/adapters/kafka/consumer-state';
import { observeProduceCall } from '../../../src/adapters/kafka/observed-producer';
import { type SentMessage } from '../../../src/contract/transport';

describe('lagOf', () => {
  const ends = [
    { partition: 0, high: '10', low: '0' },
    { partition: 1, high: '7', low: '5' },
    { partition: 2, high: '4', low: '0' },
  ];

  it('is end offset minus committed offset, from the log start when nothing is committed or it was deleted', () => {
    expect(
      lagOf('t', ends, [
        { partition: 0, offset: '8' },
        { partition: 1, offset: '2' },
        { partition: 2, offset: '-1' },
      ]),
    ).toEqual([
      { topic: 't', partition: 0, lag: 2 },
      { topic: 't', partition: 1, lag: 2 },
      { topic: 't', partition: 2, lag: 4 },
    ]);
  });

  it('is zero once everything is committed, and never negative', () => {
    expect(
      lagOf('t', ends, [
        { partition: 0, offset: '10' },
        { partition: 1, offset: '9' },
        { partition: 2, offset: '4' },
      ]).map((l) => l.lag),
    ).toEqual([0, 0, 0]);
  });
});

/** A consumer's event emitter, as @platformatic/kafka's consumer emits its group events. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  return { consumer: emitter as never, emit: (name: string, payload: object = {}) => emitter.emit(name, payload) };
}

describe('ConsumerStateTracker', () => {
  it('is joined with its assignment after a group join, and not while rebalancing or after leaving', () => {
    const { consumer, emit } = fakeConsumer();
    const tracker = new ConsumerStateTracker(consumer);
    expect(tracker.state.joined).toBe(false);
    emit('consumer:group:join', {
      memberId: 'm1',
      assignments: [
        { topic: 'cmds', partitions: [0, 2] },
        { topic: 'np', partitions: [1] },
      ],
    });
    expect(tracker.state).toMatchObject({ joined: true, memberId: 'm1', assignment: { cmds: [0, 2], np: [1] } });
    expect(tracker.assignedPartitions).toBe(3);
    emit('consumer:group:rebalance');
    expect(tracker.state).toMatchObject({ joined: false, lastEvent: 'rebalancing' });
    expect(tracker.assignedPartitions).toBe(0);
    emit('consumer:group:join', { memberId: 'm1', assignments: [{ topic: 'cmds', partitions: [1] }] });
    emit('consumer:group:leave');
    expect(tracker.state.joined).toBe(false);
    expect(tracker.state.fatalError).toBeUndefined();
  });

  it('records a failure the member consumes again after as not fatal, and one it stops for as fatal', () => {
    const { consumer } = fakeConsumer();
    const tracker = new ConsumerStateTracker(consumer);
    tracker.restarting();
    expect(tracker.state).toMatchObject({ joined: false, lastEvent: 'crashed, restarting' });
    expect(tracker.state.fatalError).toBeUndefined();
    tracker.failed(new Error('not authorized'));
    expect(tracker.state.fatalError).toBe('not authorized');
  });
});

describe('observeProduceCall', () => {
  it('reports every acknowledged message, and nothing when the send failed', async () => {
    const sent: SentMessage[] = [];
    let fail = false;
    const produce = observeProduceCall(
      async () => (fail ? Promise.reject(new Error('no leader')) : undefined),
      (messages) => sent.push(...messages),
    );
    const message = (topic: string, headers: Record<string, string> = {}) => ({ topic, partition: 0, key: null, value: Buffer.from('v'), headers });
    await produce([message('a', { h: 'v' }), message('b')]);
    fail = true;
    await expect(produce([message('c')])).rejects.toThrow('no leader');
    expect(sent.map((m) => [m.topic, m.headers])).toEqual([
      ['a', { h: 'v' }],
      ['b', {}],
    ]);
  });
});
