import type { WebhookRegistration } from './registration';

// What the dispatcher needs from the outside world, each behind a small interface (wired in src/app/webhooks.ts).

/** One event of a partner's event topics, ready to post. */
export interface WebhookEvent {
  /** The CloudEvent id: webhook-id, the receiver's idempotency key. */
  id: string;
  /** The record key: the number (gpsi). */
  key: string | null;
  topic: string;
  partition: number;
  offset: string;
  /** The CloudEvent in structured mode (application/cloudevents+json). */
  body: string;
}

/** Reads a partner's events in order per partition, committing an event's offset once `onEvent` resolves. */
export interface EventSource {
  subscribe(partnerId: string, onEvent: (event: WebhookEvent) => Promise<void>): { ready: Promise<void>; close(): Promise<void> };
}

export interface PostResult {
  /** The HTTP status, or undefined when no response came (refused, reset, timed out, TLS failure). */
  status?: number;
  error?: string;
}

export interface EndpointPoster {
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostResult>;
}

export interface RegistrationStore {
  partners(): Promise<string[]>;
  get(partnerId: string): Promise<WebhookRegistration | undefined>;
}

/** An event given up: what redelivery needs, and why. */
export interface DeadLetter {
  event: WebhookEvent;
  reason: string;
  attempts: number;
  failedAt: string;
}

export interface DeadLetterStore {
  add(partnerId: string, letter: DeadLetter): Promise<void>;
  /** Events an operator asked to redeliver, oldest first, at most `count`. */
  redeliveries(partnerId: string, count: number): Promise<{ id: string; event: WebhookEvent }[]>;
  /** Removes a redelivery once it was delivered or given up again. */
  redelivered(partnerId: string, id: string): Promise<void>;
}

export interface DeliveryMetrics {
  delivered(partnerId: string): void;
  retried(partnerId: string): void;
  failed(partnerId: string): void;
}
