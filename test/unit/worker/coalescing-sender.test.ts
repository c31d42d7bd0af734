import { CoalescingSender, type TopicMessages } from '../../../src/worker/coalescing-sender';

/** A producer whose requests the test acknowledges or fails one at a time. */
class HeldProducer {
  readonly requests: TopicMessages[][] = [];
  private pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];

  sendBatch = ({ topicMessages }: { topicMessages: TopicMessages[] }) => {
    this.requests.push(topicMessages);
    return new Promise<never[]>((resolve, reject) => this.pending.push({ resolve: () => resolve([]), reject }));
  };

  async acknowledge(): Promise<void> {
    this.pending.shift()!.resolve();
    await new Promise((r) => setImmediate(r));
  }

  async fail(error: Error): Promise<void> {
    this.pending.shift()!.reject(error);
    await new Promise((r) => setImmediate(r));
  }
}

const msgs = (topic: string, ...values: string[]): TopicMessages => ({ topic, messages: values.map((v) => ({ key: v, value: Buffer.from(v) })) });
const values = (request: TopicMessages[]) => request.map((t) => `${t.topic}:${t.messages.map((m) => String(m.key)).join(',')}`);

describe('CoalescingSender', () => {
  it('sends at once when idle; what arrives meanwhile goes out in one request, per topic, in arrival order', async () => {
    const producer = new HeldProducer();
    const sender = new CoalescingSender(producer);
    const settled: string[] = [];
    const first = sender.send([msgs('replies', 'a1', 'a2')]).then(() => settled.push('first'));
    const second = sender.send([msgs('replies', 'b1'), msgs('events', 'b2')]).then(() => settled.push('second'));
    const third = sender.send([msgs('replies', 'c1')]).then(() => settled.push('third'));
    await new Promise((r) => setImmediate(r));
    expect(producer.requests.map(values)).toEqual([['replies:a1,a2']]);
    await producer.acknowledge();
    expect(settled).toEqual(['first']);
    expect(producer.requests.map(values)).toEqual([['replies:a1,a2'], ['replies:b1,c1', 'events:b2']]);
    await producer.acknowledge();
    await Promise.all([first, second, third]);
    expect(settled).toEqual(['first', 'second', 'third']);
  });

  it('a failed request fails exactly the callers whose messages it carried; later ones still go', async () => {
    const producer = new HeldProducer();
    const sender = new CoalescingSender(producer);
    const first = sender.send([msgs('replies', 'a')]);
    const second = sender.send([msgs('replies', 'b')]);
    const third = sender.send([msgs('replies', 'c')]);
    await new Promise((r) => setImmediate(r));
    const outcomes = [expect(first).resolves.toBeUndefined(), expect(second).rejects.toThrow('broker away'), expect(third).rejects.toThrow('broker away')];
    await producer.acknowledge();
    await producer.fail(new Error('broker away'));
    await Promise.all(outcomes);
    const fourth = sender.send([msgs('replies', 'd')]);
    await new Promise((r) => setImmediate(r));
    await producer.acknowledge();
    await expect(fourth).resolves.toBeUndefined();
    expect(producer.requests.map(values)).toEqual([['replies:a'], ['replies:b,c'], ['replies:d']]);
  });

  it('keeps merged requests under half a megabyte, but sends a single larger caller as it is', async () => {
    const producer = new HeldProducer();
    const sender = new CoalescingSender(producer);
    const big = (key: string, kib: number) => ({ topic: 'dlq', messages: [{ key, value: Buffer.alloc(kib * 1024) }] });
    void sender.send([big('first', 1)]);
    void sender.send([big('huge', 700)]);
    void sender.send([big('x', 300)]);
    void sender.send([big('y', 300)]);
    await new Promise((r) => setImmediate(r));
    await producer.acknowledge();
    await producer.acknowledge();
    await producer.acknowledge();
    expect(producer.requests.map(values)).toEqual([['dlq:first'], ['dlq:huge'], ['dlq:x'], ['dlq:y']]);
  });
});
