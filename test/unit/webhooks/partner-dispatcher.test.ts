import { PartnerDispatcher } from '../../../src/webhooks/partner-dispatcher';
import type { DeadLetter, PostResult, WebhookEvent } from '../../../src/webhooks/ports';
import { setEndpoint } from '../../../src/webhooks/registration';

/**
 * The ordering rule with in-memory ports: the source hands a partition's events one at a time, waiting for
 * each (as the Kafka consumer does); an event given up is dead-lettered before the next one is posted.
 */
describe('PartnerDispatcher', () => {
  const event = (n: number): WebhookEvent => ({ id: `e${n}`, key: '1945', topic: 't', partition: 0, offset: String(n), body: `{"n":${n}}` });

  it('posts the next event of a partition only after the previous one succeeded or was dead-lettered', async () => {
    const log: string[] = [];
    const answers: Record<string, PostResult[]> = { e1: [{ status: 500 }, { status: 200 }], e2: [{ status: 500 }, { status: 500 }, { status: 500 }], e3: [{ status: 200 }] };
    let handle: (event: WebhookEvent) => Promise<void> = async () => undefined;
    const letters: DeadLetter[] = [];
    let clock = 0;
    const dispatcher = new PartnerDispatcher('P1', {
      source: { subscribe: (_partner, onEvent) => ((handle = onEvent), { ready: Promise.resolve(), close: async () => undefined }) },
      deadLetters: {
        add: async (_partner, letter) => void (letters.push(letter), log.push(`dead ${letter.event.id}`)),
        redeliveries: async () => [],
        redelivered: async () => undefined,
      },
      delivery: {
        poster: {
          post: async (_url, headers) => {
            const id = headers['webhook-id'];
            const answer = answers[id].shift() ?? { status: 500 };
            log.push(`${id} ${answer.status}`);
            return answer;
          },
        },
        registration: () => setEndpoint(undefined, 'P1', 'https://a.example/h', new Date()),
        policy: { initialDelayMs: 10, maxDelayMs: 10, maxRetryMs: 25 },
        metrics: { delivered: () => undefined, retried: () => undefined, failed: () => undefined },
        now: () => new Date(clock),
        random: () => 0.99,
        sleep: async (ms, signal) => {
          if (ms === 1000) return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
          clock += ms;
        },
      },
      redeliveryPollMs: 1000,
      log: { warn: () => undefined, error: () => undefined },
    });
    for (const n of [1, 2, 3]) await handle(event(n)); // the consumer's order: one at a time
    await dispatcher.stop();
    expect(log).toEqual(['e1 500', 'e1 200', 'e2 500', 'e2 500', 'e2 500', 'dead e2', 'e3 200']);
    expect(letters[0]).toMatchObject({ event: { id: 'e2', offset: '2' }, reason: 'HTTP 500', attempts: 3 });
  });
});
