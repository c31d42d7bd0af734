import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { PartitionLag } from '../contract/transport';
import { METRIC_PREFIX } from './metrics';

/**
 * The webhook dispatcher's Prometheus metrics, per partner: deliveries that succeeded, retries, events
 * given up (dead-lettered), and the consumer lag of the partner's group (events not yet delivered or given
 * up), read at scrape time. Listed in docs/webhooks.md.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly deliveredTotal: Counter<'partner'>;
  private readonly retriedTotal: Counter<'partner'>;
  private readonly failedTotal: Counter<'partner'>;

  constructor(options: { partners: () => string[]; lag: (partnerId: string) => Promise<PartitionLag[]>; processMetrics?: boolean }) {
    const registers = [this.registry];
    const counter = (name: string, help: string) => new Counter({ name: `${METRIC_PREFIX}webhook_${name}`, help, labelNames: ['partner'] as const, registers });
    this.deliveredTotal = counter('delivered_total', 'Events delivered: the endpoint answered 2xx.');
    this.retriedTotal = counter('retried_total', 'Failed attempts that will be tried again (non-2xx, timeout, no connection).');
    this.failedTotal = counter('failed_total', 'Events given up after the retry period: dead-lettered.');
    new Gauge({
      name: `${METRIC_PREFIX}webhook_lag`,
      help: "Events on the partner's event topics not yet delivered or given up (its consumer group's lag).",
      labelNames: ['partner'] as const,
      registers,
      async collect() {
        this.reset();
        await Promise.all(
          options.partners().map(async (partner) => {
            const lag = await options.lag(partner).catch(() => undefined);
            if (lag)
              this.set(
                { partner },
                lag.reduce((sum, p) => sum + p.lag, 0),
              );
          }),
        );
      },
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }

  delivered(partner: string): void {
    this.deliveredTotal.inc({ partner });
  }

  retried(partner: string): void {
    this.retriedTotal.inc({ partner });
  }

  failed(partner: string): void {
    this.failedTotal.inc({ partner });
  }
}
