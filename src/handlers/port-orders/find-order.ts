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

/** Each number's current port-in status (REFUSED: it has none), read from the port-in store. */
export async function numberStatuses(deps: PortOrderDeps, order: PortOrder): Promise<OrderNumberStatus[]> {
  return mapBounded(order.numbers, deps.concurrency, async (number): Promise<OrderNumberStatus> => {
    if (!number.requestId) return 'REFUSED';
    const request = await deps.portin.store.byRequest({ gpsi: number.gpsi, requestId: number.requestId });
    return request?.portStatus ?? 'REFUSED';
  });
}
