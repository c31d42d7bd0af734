import { backoffDelayMs } from '../shared/retry';
import { CLOUDEVENTS_JSON } from './cloud-event';
import type { DeliveryMetrics, EndpointPoster, WebhookEvent } from './ports';
import { activeSecrets, type WebhookRegistration } from './registration';
import { signatureHeaders } from './signing';

/**
 * When to try a failed delivery again: backoff with full jitter, so receivers coming back are not hit by
 * every sender at once; and when to give up: once the next try would fall past `maxRetryMs` after the first.
 */
export interface RetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** How long after the first attempt an event is given up (a day by default). */
  maxRetryMs: number;
}

/** The next attempt's time (retry number `attempt`, 0 for the first), or undefined when the event is to be given up. */
export function nextAttemptAt(policy: RetryPolicy, firstAttemptAt: number, now: number, attempt: number, random: () => number): number | undefined {
  const at = now + backoffDelayMs({ initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 'full' }, attempt, random);
  return at - firstAttemptAt > policy.maxRetryMs ? undefined : at;
}

/**
 * Delivers one event to a partner's endpoint until it answers 2xx, retrying failures (another status, a
 * timeout, no connection) with backoff until the policy gives up. The registration is read before each
 * attempt, so a new URL or a rotated secret applies to the next try.
 */
export interface DeliveryDeps {
  poster: EndpointPoster;
  registration: () => WebhookRegistration | undefined;
  policy: RetryPolicy;
  metrics: DeliveryMetrics;
  now?: () => Date;
  random?: () => number;
  /** Waits, or rejects when the signal aborts (shutdown). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type DeliveryOutcome = { delivered: true; attempts: number } | { delivered: false; attempts: number; reason: string };

export const isSuccess = (status: number | undefined): boolean => status !== undefined && status >= 200 && status < 300;

export async function deliver(partnerId: string, event: WebhookEvent, deps: DeliveryDeps, signal: AbortSignal): Promise<DeliveryOutcome> {
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const first = now().getTime();
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    const registration = deps.registration();
    if (!registration) throw new Error(`partner ${partnerId} has no webhook registration`);
    const at = now();
    const secrets = activeSecrets(registration, at).map((s) => s.secret);
    const headers = { 'content-type': CLOUDEVENTS_JSON, ...signatureHeaders(event.id, at, event.body, secrets) };
    const result = await deps.poster.post(registration.url, headers, event.body, signal);
    if (isSuccess(result.status)) {
      deps.metrics.delivered(partnerId);
      return { delivered: true, attempts: attempt + 1 };
    }
    signal.throwIfAborted();
    const reason = result.status !== undefined ? `HTTP ${result.status}` : (result.error ?? 'no response');
    const next = nextAttemptAt(deps.policy, first, now().getTime(), attempt, random);
    if (next === undefined) {
      deps.metrics.failed(partnerId);
      return { delivered: false, attempts: attempt + 1, reason };
    }
    deps.metrics.retried(partnerId);
    await deps.sleep(Math.max(0, next - now().getTime()), signal);
  }
}
