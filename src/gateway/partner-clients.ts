import type { CallOptions, WholesaleClient } from '../client';
import type { OperationInput, OperationName, OperationReply } from '../client/operations';

/** What the gateway needs of a requester: one call, answered by its reply or rejected with the client's errors. */
export interface Requester {
  call<O extends OperationName>(operation: O, input: OperationInput<O>, options?: CallOptions): Promise<OperationReply<O>>;
}

export interface RequesterPool {
  forPartner(partnerId: string | undefined): Promise<Requester>;
}

/**
 * One WholesaleClient per partner, connected on its first request and shared by all its requests: it sends
 * with the partner's traffic and reads only that partner's reply topics, with a consumer group of its own
 * per gateway instance — so any instance behind a load balancer can serve any request, and one partner's
 * replies never queue behind another's. A failed connect is forgotten, so the next request tries again.
 */
export class PartnerClients implements RequesterPool {
  private readonly clients = new Map<string, Promise<WholesaleClient>>();
  private closed = false;

  constructor(private readonly connect: (partnerId: string | undefined) => Promise<WholesaleClient>) {}

  forPartner(partnerId: string | undefined): Promise<WholesaleClient> {
    if (this.closed) return Promise.reject(new Error('the gateway is stopping'));
    const key = partnerId ?? '';
    let client = this.clients.get(key);
    if (!client) {
      client = this.connect(partnerId);
      client.catch(() => this.clients.delete(key));
      this.clients.set(key, client);
    }
    return client;
  }

  get size(): number {
    return this.clients.size;
  }

  /** Closes every client: calls still waiting are rejected (answered 503). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.clients.values()].map(async (client) => (await client).close()));
  }
}
