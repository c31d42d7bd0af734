import { losingProviderOf } from './providers';
import type { OrderNumber } from './validate';

/** Why a number of an order got no port-in: the error its CreatePortIn was answered with. */
export interface NumberRefusal {
  errorCode: string;
  reason: string;
}

export interface PortOrderNumber {
  gpsi: string;
  partnerTransactionId: string;
  losingProvider: string;
  /** The number's port-in request, once created. */
  requestId?: string;
  refusal?: NumberRefusal;
}

/**
 * A port order as stored: the list of its numbers and, once every number was handled, each number's
 * port-in (or refusal). CREATING: the numbers are being created (a worker that dies leaves it so, and the
 * order's redelivery or retry resumes it); CREATED: every number has its result. `version` counts the
 * writes (compare-and-set). Its status is never stored: it is derived from the numbers' (status.ts).
 */
export interface PortOrder {
  orderId: string;
  owner: string;
  /** Fingerprint of the order's payload: the same orderId with another payload is a CONFLICT. */
  fingerprint: string;
  correlationId: string;
  /** The command that created the order: its redelivery publishes the order's messages again, a retry under another id does not. */
  commandId: string;
  createdAt: string;
  version: number;
  state: 'CREATING' | 'CREATED';
  numbers: PortOrderNumber[];
}

/** The stored format (`v`); a worker reads this and every earlier one, and stops at a newer one. */
export const PORT_ORDER_FORMAT = 1;

export function newPortOrder(facts: { orderId: string; owner: string; fingerprint: string; correlationId: string; commandId: string; now: Date }, numbers: readonly OrderNumber[]): PortOrder {
  return {
    orderId: facts.orderId,
    owner: facts.owner,
    fingerprint: facts.fingerprint,
    correlationId: facts.correlationId,
    commandId: facts.commandId,
    createdAt: facts.now.toISOString(),
    version: 1,
    state: 'CREATING',
    numbers: numbers.map(({ gpsi, partnerTransactionId }) => ({ gpsi, partnerTransactionId, losingProvider: losingProviderOf(gpsi) })),
  };
}

export const encodePortOrder = (order: PortOrder): string => JSON.stringify({ v: PORT_ORDER_FORMAT, ...order });

export function decodePortOrder(text: string): PortOrder {
  const { v, ...order } = JSON.parse(text) as PortOrder & { v?: number };
  if ((v ?? PORT_ORDER_FORMAT) > PORT_ORDER_FORMAT) throw new Error(`stored port order of format ${v}: newer than this worker reads (up to ${PORT_ORDER_FORMAT})`);
  return order;
}
