import { deliver, type DeliveryDeps } from './delivery';
import type { DeadLetterStore, EventSource, WebhookEvent } from './ports';

/**
 * One partner's deliveries: its own consumer (group) on its event topics, so its endpoint never holds up
 * another partner's. Events of one partition are delivered one after the other — the next waits until the
 * previous succeeded or was given up (then dead-lettered) — and a number's events share a partition, so
 * they arrive in order. The event's offset is committed only after that: the committed offsets are the
 * cursor, and a restart resumes from the first event not yet done (at least once). Redeliveries an
 * operator asked for are polled and delivered beside the live events.
 */
export interface PartnerDispatcherDeps {
  source: EventSource;
  deadLetters: DeadLetterStore;
  delivery: DeliveryDeps;
  redeliveryPollMs: number;
  log: { warn(fields: object, message: string): void; error(fields: object, message: string): void };
}

export class PartnerDispatcher {
  private readonly abort = new AbortController();
  private readonly subscription: { ready: Promise<void>; close(): Promise<void> };
  private readonly redeliveryLoop: Promise<void>;

  constructor(
    readonly partnerId: string,
    private readonly deps: PartnerDispatcherDeps,
  ) {
    this.subscription = deps.source.subscribe(partnerId, (event) => this.handle(event));
    this.redeliveryLoop = this.pollRedeliveries();
  }

  get ready(): Promise<void> {
    return this.subscription.ready;
  }

  /** Delivers one event; given up, it becomes a dead letter. Rejects only on shutdown (the offset stays uncommitted). */
  private async handle(event: WebhookEvent): Promise<void> {
    const outcome = await deliver(this.partnerId, event, this.deps.delivery, this.abort.signal);
    if (outcome.delivered) return;
    this.deps.log.warn({ partnerId: this.partnerId, eventId: event.id, reason: outcome.reason, attempts: outcome.attempts }, 'webhook given up: dead-lettered');
    await this.deps.deadLetters.add(this.partnerId, { event, reason: outcome.reason, attempts: outcome.attempts, failedAt: new Date().toISOString() });
  }

  private async pollRedeliveries(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const due = await this.deps.deadLetters.redeliveries(this.partnerId, 10);
        for (const { id, event } of due) {
          await this.handle(event);
          await this.deps.deadLetters.redelivered(this.partnerId, id);
        }
        if (due.length === 0) await this.deps.delivery.sleep(this.deps.redeliveryPollMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        this.deps.log.error({ err: error, partnerId: this.partnerId }, 'redelivery failed; trying again');
        await this.deps.delivery.sleep(this.deps.redeliveryPollMs, signal).catch(() => undefined);
      }
    }
  }

  /** Stops at once: a delivery in progress is abandoned uncommitted, so the next start delivers it again. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([this.subscription.close(), this.redeliveryLoop]);
  }
}
