import type { RetryPolicy } from './delivery';
import { PartnerDispatcher, type PartnerDispatcherDeps } from './partner-dispatcher';
import type { DeadLetterStore, DeliveryMetrics, EndpointPoster, EventSource, RegistrationStore } from './ports';
import type { WebhookRegistration } from './registration';

/**
 * The dispatcher: a PartnerDispatcher per registered partner. It reads the registrations every
 * `refreshMs`: a partner registered since gets its dispatcher, one removed loses it, and a changed URL or
 * a rotated secret applies to the next attempt.
 */
export interface DispatcherDeps {
  registrations: RegistrationStore;
  source: EventSource;
  deadLetters: DeadLetterStore;
  poster: EndpointPoster;
  metrics: DeliveryMetrics;
  policy: RetryPolicy;
  refreshMs: number;
  redeliveryPollMs: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  log: PartnerDispatcherDeps['log'] & { info(fields: object, message: string): void };
}

export class WebhookDispatcher {
  private readonly running = new Map<string, PartnerDispatcher>();
  private readonly current = new Map<string, WebhookRegistration>();
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(private readonly deps: DispatcherDeps) {}

  /** Reads the registrations once and starts their partners; then keeps them in step. */
  async start(): Promise<void> {
    await this.refresh();
    await Promise.all([...this.running.values()].map((partner) => partner.ready));
    this.loop = this.keepRefreshing();
  }

  get partners(): string[] {
    return [...this.running.keys()].sort();
  }

  /** Resolves once every partner's consumer has joined its group. */
  async ready(): Promise<void> {
    await Promise.all([...this.running.values()].map((partner) => partner.ready));
  }

  async refresh(): Promise<void> {
    const partners = await this.deps.registrations.partners();
    const found = await Promise.all(partners.map(async (id) => [id, await this.deps.registrations.get(id)] as const));
    const registered = new Map(found.filter((entry): entry is readonly [string, WebhookRegistration] => entry[1] !== undefined));
    for (const [id, registration] of registered) this.current.set(id, registration);
    for (const [id, partner] of this.running) {
      if (registered.has(id)) continue;
      this.running.delete(id);
      this.current.delete(id);
      this.deps.log.info({ partnerId: id }, 'webhook registration removed: dispatcher stopped');
      await partner.stop();
    }
    for (const id of registered.keys()) {
      if (this.running.has(id) || this.abort.signal.aborted) continue;
      this.running.set(id, this.startPartner(id));
      this.deps.log.info({ partnerId: id }, 'webhook dispatcher started');
    }
  }

  private startPartner(partnerId: string): PartnerDispatcher {
    const { deps } = this;
    return new PartnerDispatcher(partnerId, {
      source: deps.source,
      deadLetters: deps.deadLetters,
      redeliveryPollMs: deps.redeliveryPollMs,
      log: deps.log,
      delivery: { poster: deps.poster, metrics: deps.metrics, policy: deps.policy, sleep: deps.sleep, registration: () => this.current.get(partnerId) },
    });
  }

  private async keepRefreshing(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        await this.deps.sleep(this.deps.refreshMs, signal);
        await this.refresh();
      } catch (error) {
        if (!signal.aborted) this.deps.log.error({ err: error }, 'reading the webhook registrations failed; trying again');
      }
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop?.catch(() => undefined);
    await Promise.all([...this.running.values()].map((partner) => partner.stop()));
    this.running.clear();
  }
}
