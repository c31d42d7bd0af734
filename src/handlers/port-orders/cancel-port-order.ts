import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { orderEvent } from '../../domain/port-orders/messages';
import { deriveOrderStatus, type OrderNumberStatus } from '../../domain/port-orders/status';
import { checkOrderRef } from '../../domain/port-orders/validate';
import { orBadRequest } from '../../domain/validation/problems';
import { createCancelPortIn } from '../portin/cancel-port-in';
import { mapBounded, runForNumber } from './each-number';
import { findOrder, numberStatuses } from './find-order';
import type { PortOrderDeps } from './ports';
import { settlementEvents } from './settlement';
import { numberView } from './views';

/**
 * CancelPortOrder: every number of the order that has a port-in (or the one named by gpsi) is cancelled
 * through the CancelPortIn handler, under a command id derived from this command and the number, so a
 * redelivery replays each. A number that cannot be cancelled (finished, refused) is listed with why.
 */
export const createCancelPortOrder = (deps: PortOrderDeps): Handler => {
  const cancelPortIn = createCancelPortIn(deps.portin);
  return async (raw, context) => {
    const { orderId, gpsi } = orBadRequest(checkOrderRef(raw));
    const order = await findOrder(deps, context, orderId);
    const targets = gpsi ? order.numbers.filter((n) => n.gpsi === gpsi) : order.numbers;
    if (gpsi && targets.length === 0) throw new ServiceError('NOT_FOUND', `${gpsi} is not a number of port order ${orderId}`, [{ path: 'gpsi', reason: 'is not in the order' }]);
    const outcomes = await mapBounded(targets, deps.concurrency, async (number) => {
      if (number.refusal) return { view: numberView(number, undefined), messages: [] };
      const result = await runForNumber(cancelPortIn, { gpsi: number.gpsi, partnerTransactionId: number.partnerTransactionId }, context, 'CancelPortIn', [context.commandId, number.gpsi]);
      if (result.kind === 'refused') return { view: numberView(number, undefined, result.refusal), messages: [] };
      return { view: numberView(number, (result.result.reply as { portStatus: OrderNumberStatus }).portStatus), messages: result.result.messages ?? [] };
    });
    const orderStatus = deriveOrderStatus(await numberStatuses(deps, order));
    const event = orderEvent(order, 'CANCEL_REQUESTED', { causeId: `cancel:${context.commandId}`, at: context.now, correlationId: context.correlationId, orderStatus, ...(gpsi ? { gpsi } : {}) });
    const numberMessages = outcomes.flatMap((o) => o.messages);
    return {
      reply: { status: 'Success', orderId, orderStatus, numbers: outcomes.map((o) => o.view) },
      // a cancel at once (REJECTED, RESOLUTION_REQUIRED) may settle the order's last number
      messages: [...numberMessages, event, ...(await settlementEvents(deps, numberMessages, context.now))],
    };
  };
};
