import { Webhook } from 'standardwebhooks';
import { nextAttemptAt, type RetryPolicy } from '../../../src/webhooks/delivery';
import { deliver, type DeliveryDeps } from '../../../src/webhooks/delivery';
import type { PostResult, WebhookEvent } from '../../../src/webhooks/ports';
import { activeSecrets, endpointUrlProblems, parseRegistration, RegistrationFormatError, rotateSecret, setEndpoint } from '../../../src/webhooks/registration';
import { signatureHeaders } from '../../../src/webhooks/signing';

const policy: RetryPolicy = { initialDelayMs: 1000, maxDelayMs: 60_000, maxRetryMs: 3_600_000 };
const t0 = new Date('2026-11-28T12:00:00Z');

describe('registration', () => {
  it('creates a whsec_ secret of 24 random bytes and keeps it when the URL changes', () => {
    const first = setEndpoint(undefined, 'P1', 'https://a.example/h', t0);
    expect(first).toMatchObject({ format: 1, partnerId: 'P1', url: 'https://a.example/h' });
    expect(Buffer.from(first.secrets[0].secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
    const moved = setEndpoint(first, 'P1', 'https://b.example/h', new Date(t0.getTime() + 1000));
    expect(moved.secrets).toEqual(first.secrets);
    expect(moved.url).toBe('https://b.example/h');
  });

  it('rotation keeps the previous secret for the grace period only', () => {
    const first = setEndpoint(undefined, 'P1', 'https://a.example/h', t0);
    const rotated = rotateSecret(first, t0, 60_000);
    expect(rotated.secrets).toHaveLength(2);
    expect(rotated.secrets[1]).toMatchObject({ secret: first.secrets[0].secret, expiresAt: '2026-11-28T12:01:00.000Z' });
    expect(activeSecrets(rotated, new Date(t0.getTime() + 59_999))).toHaveLength(2);
    expect(activeSecrets(rotated, new Date(t0.getTime() + 60_000)).map((s) => s.secret)).toEqual([rotated.secrets[0].secret]);
    // a second rotation after the grace drops the expired secret
    expect(rotateSecret(rotated, new Date(t0.getTime() + 120_000), 1000).secrets).toHaveLength(2);
  });

  it('accepts https, and http only when allowed; lists every problem', () => {
    expect(endpointUrlProblems('https://a.example/h', false)).toEqual([]);
    expect(endpointUrlProblems('http://a.example/h', true)).toEqual([]);
    expect(endpointUrlProblems('http://a.example/h', false)).toHaveLength(1);
    expect(endpointUrlProblems('ftp://u:p@a.example/h', false)).toHaveLength(2);
    expect(endpointUrlProblems('not a url', true)).toHaveLength(1);
  });

  it('reads the stored format back and refuses what it does not know, naming every problem', () => {
    const stored = setEndpoint(undefined, 'P1', 'https://a.example/h', t0);
    expect(parseRegistration(JSON.stringify(stored))).toEqual(stored);
    try {
      parseRegistration(JSON.stringify({ format: 9, secrets: [{ secret: 'x' }] }));
      throw new Error('no error');
    } catch (error) {
      expect(error).toBeInstanceOf(RegistrationFormatError);
      expect((error as RegistrationFormatError).problems).toHaveLength(7);
    }
  });
});

describe('signing', () => {
  it('signs with every active secret; the standardwebhooks verifier accepts each secret alone', () => {
    const [a, b] = [setEndpoint(undefined, 'P', 'https://x', t0).secrets[0].secret, setEndpoint(undefined, 'P', 'https://x', t0).secrets[0].secret];
    const now = new Date();
    const body = JSON.stringify({ id: 'e1', data: { gpsi: '1' } });
    const headers = signatureHeaders('e1', now, body, [a, b]);
    expect(headers['webhook-id']).toBe('e1');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(a).verify(`${body} `, { ...headers })).toThrow();
  });
});

describe('backoff', () => {
  it('full jitter: a random delay below an exponentially growing ceiling, capped', () => {
    expect(nextAttemptAt(policy, 0, 0, 0, () => 0.999)).toBe(999);
    expect(nextAttemptAt(policy, 0, 0, 3, () => 0.5)).toBe(4000);
    expect(nextAttemptAt(policy, 0, 0, 40, () => 0.5)).toBe(30_000);
    expect(nextAttemptAt(policy, 0, 0, 5, () => 0)).toBe(0);
  });

  it('gives up once the next attempt would fall past the retry period', () => {
    expect(nextAttemptAt(policy, 0, 3_500_000, 10, () => 0.5)).toBe(3_530_000);
    expect(nextAttemptAt(policy, 0, 3_590_000, 10, () => 0.5)).toBeUndefined();
  });
});

describe('delivery', () => {
  const event: WebhookEvent = { id: 'e1', key: '1945', topic: 't', partition: 0, offset: '7', body: '{"id":"e1"}' };
  const registration = setEndpoint(undefined, 'P1', 'https://a.example/h', t0);

  function harness(answers: PostResult[]) {
    let clock = t0.getTime();
    const posts: Record<string, string>[] = [];
    const counts = { delivered: 0, retried: 0, failed: 0 };
    const deps: DeliveryDeps = {
      poster: { post: async (_url, headers) => (posts.push(headers), answers.shift() ?? { status: 200 }) },
      registration: () => registration,
      policy,
      metrics: { delivered: () => counts.delivered++, retried: () => counts.retried++, failed: () => counts.failed++ },
      now: () => new Date(clock),
      random: () => 0.5,
      sleep: async (ms) => void (clock += ms),
    };
    return { deps, posts, counts };
  }

  it('retries non-2xx and no answer, with the same webhook-id, until a 2xx', async () => {
    const { deps, posts, counts } = harness([{ status: 500 }, { error: 'ECONNREFUSED' }, { status: 302 }, { status: 204 }]);
    expect(await deliver('P1', event, deps, new AbortController().signal)).toEqual({ delivered: true, attempts: 4 });
    expect(posts.map((h) => h['webhook-id'])).toEqual(['e1', 'e1', 'e1', 'e1']);
    expect(posts[0]['content-type']).toBe('application/cloudevents+json');
    expect(counts).toEqual({ delivered: 1, retried: 3, failed: 0 });
  });

  it('gives up after the retry period with the last reason', async () => {
    const { deps, counts } = harness(Array.from({ length: 1000 }, () => ({ status: 503 })));
    const outcome = await deliver('P1', event, deps, new AbortController().signal);
    expect(outcome).toMatchObject({ delivered: false, reason: 'HTTP 503' });
    expect(counts.failed).toBe(1);
    expect(counts.retried).toBe(outcome.attempts - 1);
  });

  it('stops on shutdown without counting a delivery', async () => {
    const abort = new AbortController();
    const { deps, counts } = harness([{ status: 500 }]);
    deps.sleep = async () => abort.abort();
    await expect(deliver('P1', event, deps, abort.signal)).rejects.toThrow();
    expect(counts.delivered + counts.failed).toBe(0);
  });
});
