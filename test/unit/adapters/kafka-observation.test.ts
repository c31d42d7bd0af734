import type { Consumer, Producer } from 'kafkajs';
import { lagOf } from '../../../src/adapters/kafka/consumer-lag';
import { ConsumerStateTracker } from '../../../src/adapters/kafka/consumer-state';
import { observeProducer } from '../../../src/adapters/kafka/observed-producer';
import { type SentMessage } from '../../../src/contract/transport';

describe('lagOf', () => {
  const ends = [
    { partition: 0, high: '10', low: '0' },
    { partition: 1, high: '7', low: '5' },
    { partition: 2, high: '4', low: '0' },
  ];

  it('is end offset minus committed offset, from the log start when nothing is committed or it was deleted', () => {
    expect(lagOf('t', ends, [{ partition: 0, offset: '8' }, { partition: 1, offset: '2' }, { partition: 2, offset: '-1' }])).toEqual([
      { topic: 't', partition: 0, lag: 2 },
      { topic: 't', partition: 1, lag: 2 },
      { topic: 't', partition: 2, lag: 4 },
    ]);
  });

  it('is zero once everything is committed, and never negative', () => {
    expect(lagOf('t', ends, [{ partition: 0, offset: '10' }, { partition: 1, offset: '9' }, { partition: 2, offset: '4' }]).map((l) => l.lag)).toEqual([0, 0, 0]);
  });
});

function fakeConsumer() {
  const listeners = new Map<string, (event: { payload: any }) => void>();
  const events = { GROUP_JOIN: 'join', REBALANCING: 'rebalancing', CRASH: 'crash', STOP: 'stop', DISCONNECT: 'disconnect' };
  const consumer = { events, on: (name: string, listener: (event: { payload: any }) => void) => listeners.set(name, listener) } as unknown as Consumer;
  const emit = (name: keyof typeof events, payload: object = {}) => listeners.get(events[name])!({ payload });
  return { consumer, emit };
}

describe('ConsumerStateTracker', () => {
  it('is joined with its assignment after a group join, and not while rebalancing or after a stop', () => {
    const { consumer, emit } = fakeConsumer();
    const tracker = new ConsumerStateTracker(consumer);
    expect(tracker.state.joined).toBe(false);
    emit('GROUP_JOIN', { memberId: 'm1', memberAssignment: { cmds: [0, 2], np: [1] } });
    expect(tracker.state).toMatchObject({ joined: true, memberId: 'm1' });
    expect(tracker.assignedPartitions).toBe(3);
    emit('REBALANCING');
    expect(tracker.state).toMatchObject({ joined: false, lastEvent: 'rebalancing' });
    expect(tracker.assignedPartitions).toBe(0);
    emit('GROUP_JOIN', { memberId: 'm1', memberAssignment: { cmds: [1] } });
    emit('STOP');
    expect(tracker.state.joined).toBe(false);
    expect(tracker.state.fatalError).toBeUndefined();
  });

  it('records a crash kafkajs gives up on as fatal, and one it restarts from as not', () => {
    const { consumer, emit } = fakeConsumer();
    const tracker = new ConsumerStateTracker(consumer);
    emit('CRASH', { error: new Error('blip'), restart: true });
    expect(tracker.state).toMatchObject({ joined: false, lastEvent: 'crashed, restarting' });
    expect(tracker.state.fatalError).toBeUndefined();
    emit('CRASH', { error: new Error('not authorized'), restart: false });
    expect(tracker.state.fatalError).toBe('not authorized');
  });
});

describe('observeProducer', () => {
  it('reports every acknowledged message of send and sendBatch, and nothing when the send failed', async () => {
    const sent: SentMessage[] = [];
    let fail = false;
    const inner = {
      connect: async () => undefined,
      send: async () => (fail ? Promise.reject(new Error('no leader')) : [{ topicName: 'x', partition: 0, errorCode: 0 }]),
      sendBatch: async () => [],
    } as unknown as Producer;
    const producer = observeProducer(inner, (messages) => sent.push(...messages));
    expect(producer.connect).toBe(inner.connect);
    await producer.send({ topic: 'a', messages: [{ value: '1', headers: { h: 'v' } }, { value: '2' }] });
    await producer.sendBatch({ topicMessages: [{ topic: 'b', messages: [{ value: '3' }] }, { topic: 'c', messages: [{ value: '4' }] }] });
    fail = true;
    await expect(producer.send({ topic: 'a', messages: [{ value: '5' }] })).rejects.toThrow('no leader');
    expect(sent).toEqual([{ topic: 'a', headers: { h: 'v' } }, { topic: 'a', headers: undefined }, { topic: 'b', headers: undefined }, { topic: 'c', headers: undefined }]);
  });
});
