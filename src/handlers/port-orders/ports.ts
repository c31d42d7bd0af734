import type { PortOrder } from '../../domain/port-orders/order';
import type { PortInDeps } from '../portin/deps';

/**
 * Where port orders are kept (over Redis in src/adapters/redis/port-order-store.ts). An order is one record
 * of its own, keyed by its owner and the partner's orderId; its numbers' port-ins live in the port-in store.
 */
export interface PortOrderStore {
  read(owner: string, orderId: string): Promise<PortOrder | undefined>;
  /** Stores the order unless one is stored under its key already; answers the stored one either way. */
  create(order: PortOrder): Promise<PortOrder>;
  /** Replaces the order if its stored version is still `expectedVersion`; false when another write came first. */
  update(order: PortOrder, expectedVersion: number): Promise<boolean>;
  /** Remembers which order each created number belongs to, by its owner and partnerTransactionId. Idempotent. */
  indexMembers(order: PortOrder): Promise<void>;
  /** The order a number (owner, partnerTransactionId) was created in, if any. */
  orderOf(owner: string, partnerTransactionId: string): Promise<string | undefined>;
  /** Marks the number settled in its order; answers how many of the order's numbers are. Idempotent. */
  markSettled(order: PortOrder, partnerTransactionId: string): Promise<number>;
}

/** What the port-order handlers are built from: the order store and the port-in side each number goes through. */
export interface PortOrderDeps {
  orders: PortOrderStore;
  portin: PortInDeps;
  /** How many of an order's numbers are handled at once (distinct numbers: distinct Redis slots). */
  concurrency: number;
}
