import { ServiceError } from '../../contract/errors';
import type { CommandContext } from '../../contract/handlers';
import type { PortOrder } from '../../domain/port-orders/order';
import type { OrderNumberStatus } from '../../domain/port-orders/status';
import { ownerOf } from '../portin/deps';
import { mapBounded } from './each-number';
import type { PortOrderDeps } from './ports';

/** The caller's order by its orderId, or NOT_FOUND (an order still being created is found: it has its numbers). */
export async function findOrder(deps: PortOrderDeps, context: CommandContext, orderId: string): Promise<PortOrder> {
  const order = await deps.orders.read(ownerOf(context), orderId);
  if (!order) throw new ServiceError('NOT_FOUND', `no port order ${orderId}`);
  return order;
}

/**
 * Each number's current port-in status, read from the port-in store. An order still being created names
 * no request yet: its numbers are found by their partnerTransactionId, CREATING until their port-in is written.
 */
export async function numberStatuses(deps: PortOrderDeps, order: PortOrder): Promise<OrderNumberStatus[]> {
  const { store } = deps.portin;
  return mapBounded(order.numbers, deps.concurrency, async (number): Promise<OrderNumberStatus> => {
    if (number.refusal) return 'REFUSED';
    const ref = number.requestId ? { gpsi: number.gpsi, requestId: number.requestId } : await store.findTransaction(order.owner, number.partnerTransactionId);
    const request = ref ? await store.byRequest(ref) : undefined;
    if (request) return request.portStatus;
    return order.state === 'CREATING' ? 'CREATING' : 'REFUSED';
  });
}
