import type { Handler } from '../../contract/handlers';
import { splitByProvider } from '../../domain/port-orders/providers';
import { countByStatus, deriveOrderStatus } from '../../domain/port-orders/status';
import { checkOrderRef } from '../../domain/port-orders/validate';
import { orBadRequest } from '../../domain/validation/problems';
import { findOrder, numberStatuses } from './find-order';
import type { PortOrderDeps } from './ports';
import { numberView } from './views';

/** QueryPortOrder: the order's status derived from its numbers' current port-in statuses, and each number. */
export const createQueryPortOrder =
  (deps: PortOrderDeps): Handler =>
  async (raw, context) => {
    const { orderId } = orBadRequest(checkOrderRef(raw));
    const order = await findOrder(deps, context, orderId);
    const statuses = await numberStatuses(deps, order);
    return {
      reply: {
        status: 'Success',
        orderId: order.orderId,
        orderStatus: deriveOrderStatus(statuses),
        createdAt: order.createdAt,
        numberCount: order.numbers.length,
        statusCounts: countByStatus(statuses),
        groups: splitByProvider(order.numbers.filter((n) => !n.refusal).map((n) => n.gpsi)).map((g) => ({ losingProvider: g.losingProvider, numberCount: g.numbers.length })),
        numbers: order.numbers.map((n, i) => numberView(n, statuses[i])),
      },
    };
  };
