import type { PortStatus } from '../portin/lifecycle';

/**
 * A number's state in an order: its port-in's status; REFUSED when its port-in was refused; CREATING while
 * the order is being created and the number's port-in is not (yet).
 */
export type OrderNumberStatus = PortStatus | 'REFUSED' | 'CREATING';

export const ORDER_STATUSES = ['IN_PROGRESS', 'ACTION_REQUIRED', 'COMPLETED', 'PARTIALLY_COMPLETED', 'CANCELLED', 'FAILED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The NP side is still working on these: the order is not settled while one is. */
const IN_FLIGHT: readonly OrderNumberStatus[] = ['CREATING', 'OPEN', 'DELAYED', 'CONFIRMED', 'CANCEL_PENDING'];

/**
 * An order's status, derived from its numbers' (never stored, so it cannot drift from them):
 * IN_PROGRESS while any number is in flight; ACTION_REQUIRED while any waits for the partner's
 * UpdatePortIn (RESOLUTION_REQUIRED); then COMPLETED when every number completed, PARTIALLY_COMPLETED when
 * some did, CANCELLED when every number was cancelled, else FAILED (none completed: refused, rejected or
 * cancelled). A REJECTED number counts as settled; an UpdatePortIn that reopens it makes the order
 * IN_PROGRESS again.
 */
export function deriveOrderStatus(numbers: readonly OrderNumberStatus[]): OrderStatus {
  if (numbers.some((s) => IN_FLIGHT.includes(s))) return 'IN_PROGRESS';
  if (numbers.includes('RESOLUTION_REQUIRED')) return 'ACTION_REQUIRED';
  const completed = numbers.filter((s) => s === 'COMPLETED').length;
  if (numbers.length > 0 && completed === numbers.length) return 'COMPLETED';
  if (completed > 0) return 'PARTIALLY_COMPLETED';
  if (numbers.length > 0 && numbers.every((s) => s === 'CANCELLED')) return 'CANCELLED';
  return 'FAILED';
}

/** How many numbers are in each state, for the query's summary. */
export function countByStatus(numbers: readonly OrderNumberStatus[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of numbers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
