import type { OutgoingMessage } from '../../../src/contract/messages';
import type { NewSubscription, SubscriptionLifecycle } from '../../../src/domain/subscription';

/** In-memory SubscriptionLifecycle for unit tests: statuses per number, a billing event per change, idempotent by cause. */
export class MemorySubscriptions implements SubscriptionLifecycle {
  readonly subscriptions = new Map<string, NewSubscription & { status: 'PENDING' | 'ACTIVE' | 'CANCELLED' }>();
  private readonly handled = new Map<string, OutgoingMessage[]>();

  async createPending(subscription: NewSubscription, commandId: string) {
    if (this.handled.has(commandId)) return true;
    const held = this.subscriptions.get(subscription.gpsi);
    if (held && held.status !== 'CANCELLED') return false;
    this.subscriptions.set(subscription.gpsi, { ...subscription, status: 'PENDING' });
    this.handled.set(commandId, []);
    return true;
  }

  private async move(gpsi: string, from: 'PENDING', to: 'ACTIVE' | 'CANCELLED', causeId: string, at: Date) {
    const done = this.handled.get(causeId);
    if (done) return done;
    const held = this.subscriptions.get(gpsi);
    const messages: OutgoingMessage[] = [];
    if (held?.status === from) {
      held.status = to;
      const recordName = to === 'ACTIVE' ? 'wholesale.balance.v1.SubscriptionActivated' : 'wholesale.balance.v1.SubscriptionCancelled';
      messages.push({ topic: 'balanceEvents', recordName, key: gpsi, value: { gpsi, at: at.toISOString() } });
    }
    this.handled.set(causeId, messages);
    return messages;
  }

  activate(gpsi: string, at: Date, causeId: string) {
    return this.move(gpsi, 'PENDING', 'ACTIVE', causeId, at);
  }

  cancel(gpsi: string, at: Date, _reason: string, causeId: string) {
    return this.move(gpsi, 'PENDING', 'CANCELLED', causeId, at);
  }

  async status(gpsi: string) {
    const held = this.subscriptions.get(gpsi);
    return held && { status: held.status, wholesaleCustomerId: held.wholesaleCustomerId };
  }
}
