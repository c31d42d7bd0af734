import type { PortOrderNumber } from '../../domain/port-orders/order';
import type { OrderNumberStatus } from '../../domain/port-orders/status';

/** A number as the order's replies show it (PortOrderNumberResult). */
export const numberView = (number: PortOrderNumber, portStatus: OrderNumberStatus | undefined, refusal = number.refusal) => ({
  gpsi: number.gpsi,
  partnerTransactionId: number.partnerTransactionId,
  losingProvider: number.losingProvider,
  portStatus: refusal || portStatus === 'REFUSED' ? null : (portStatus ?? null),
  errorCode: refusal?.errorCode ?? null,
  reason: refusal?.reason ?? null,
});
