import type { OutgoingMessage } from '../../contract/messages';
import { derivedUuid } from '../portin/ids';
import type { PortOrder } from './order';
import { splitByProvider } from './providers';
import { PORT_ORDER_EVENT_RECORD } from './records';
import type { OrderStatus } from './status';

export type OrderEventType = 'CREATED' | 'SPLIT' | 'CANCEL_REQUESTED' | 'SETTLED';

/** What an order event is about; its id comes from `causeId`, so a replay builds the same event (same ce_id). */
export interface OrderEventCause {
  causeId: string;
  at: Date;
  correlationId: string;
  orderStatus: OrderStatus;
  /** CANCEL_REQUESTED for one number. */
  gpsi?: string;
}

/** One PortOrderEvent, keyed by the order id, on the operator's and the owning partner's event topics. */
export function orderEvent(order: PortOrder, type: OrderEventType, cause: OrderEventCause): OutgoingMessage {
  const eventId = derivedUuid(PORT_ORDER_EVENT_RECORD, order.owner, order.orderId, cause.causeId, type);
  const eventTime = cause.at.toISOString();
  const refusedCount = order.numbers.filter((n) => n.refusal).length;
  const providers = new Map(order.numbers.map((n) => [n.gpsi, n.losingProvider]));
  return {
    topic: 'portinEvents',
    recordName: PORT_ORDER_EVENT_RECORD,
    key: order.orderId,
    owner: order.owner || undefined,
    value: {
      eventId,
      eventTime,
      orderId: order.orderId,
      eventType: type,
      orderStatus: cause.orderStatus,
      wholesaleCustomerId: order.owner || null,
      correlationId: cause.correlationId,
      numberCount: order.numbers.length,
      createdCount: order.numbers.length - refusedCount,
      refusedCount,
      gpsi: cause.gpsi ?? null,
      groups:
        type === 'SPLIT'
          ? splitByProvider(
              order.numbers.filter((n) => !n.refusal).map((n) => n.gpsi),
              (gpsi) => providers.get(gpsi) ?? '',
            )
          : null,
    },
    cloudEvent: { id: eventId, subject: order.orderId, time: eventTime },
  };
}
