import type { HandlerRegistration } from '../../contract/handlers';
import type { OutgoingMessage } from '../../contract/messages';
import { PORTIN_COMMAND_RECORDS, PORTIN_EVENT_RECORD } from '../../domain/portin/records';
import { orderEvent } from '../../domain/port-orders/messages';
import { deriveOrderStatus } from '../../domain/port-orders/status';
import type { NpResponseProcessor } from '../portin/np-response-processor';
import { numberStatuses } from './find-order';
import type { PortOrderDeps } from './ports';

/** A number in one of these has nothing more coming from the NP side. */
const SETTLED_STATUSES: readonly string[] = ['COMPLETED', 'CANCELLED', 'REJECTED'];

interface PortInEventFields {
  portStatus: string;
  partnerTransactionId: string;
  wholesaleCustomerId?: string | null;
}

/**
 * The order events a batch of port-in messages brings: when a number of an order reaches a settled status
 * and with it every created number of the order has, the order's SETTLED event with its derived status.
 * Its id comes from the order and that status, so a replay (or a second settlement to the same status)
 * repeats it under the same ce_id.
 */
export async function settlementEvents(deps: PortOrderDeps, messages: readonly OutgoingMessage[], now: Date): Promise<OutgoingMessage[]> {
  const events: OutgoingMessage[] = [];
  for (const message of messages) {
    if (message.recordName !== PORTIN_EVENT_RECORD) continue;
    const { portStatus, partnerTransactionId, wholesaleCustomerId } = message.value as unknown as PortInEventFields;
    if (!SETTLED_STATUSES.includes(portStatus)) continue;
    const owner = wholesaleCustomerId ?? '';
    const orderId = await deps.orders.orderOf(owner, partnerTransactionId);
    const order = orderId ? await deps.orders.read(owner, orderId) : undefined;
    if (!order) continue;
    const settled = await deps.orders.markSettled(order, partnerTransactionId);
    if (settled < order.numbers.filter((n) => !n.refusal).length) continue;
    const orderStatus = deriveOrderStatus(await numberStatuses(deps, order));
    if (orderStatus === 'IN_PROGRESS' || orderStatus === 'ACTION_REQUIRED') continue;
    events.push(orderEvent(order, 'SETTLED', { causeId: `settled:${orderStatus}`, at: now, correlationId: order.correlationId, orderStatus }));
  }
  return events;
}

/** The port-in NP response processor, with the SETTLED event of an order its response settles. */
export const withOrderSettlement =
  (processor: NpResponseProcessor, deps: PortOrderDeps): NpResponseProcessor =>
  async (response, context) => {
    const messages = await processor(response, context);
    return [...messages, ...(await settlementEvents(deps, messages, context.now))];
  };

/**
 * The port-in registrations, CancelPortIn's with the SETTLED event of an order its cancel settles (a number
 * RESOLUTION_REQUIRED, or REJECTED, is CANCELLED at once, with no NP response to count it). CancelPortOrder
 * goes through the unwrapped handler and counts its numbers itself.
 */
export function withCancelSettlement(registrations: HandlerRegistration[], deps: PortOrderDeps): HandlerRegistration[] {
  return registrations.map((registration) => {
    if (registration.commandRecord !== PORTIN_COMMAND_RECORDS.CancelPortIn.command) return registration;
    const { handle } = registration;
    return {
      ...registration,
      handle: async (command, context) => {
        const result = await handle(command, context);
        const messages = result.messages ?? [];
        return { ...result, messages: [...messages, ...(await settlementEvents(deps, messages, context.now))] };
      },
    };
  });
}

/** A publisher of the abandonment timer's messages, with the SETTLED event of an order a cancel by the timer settles. */
export const withExpirySettlement =
  (publish: (messages: OutgoingMessage[]) => Promise<void>, deps: PortOrderDeps, clock: () => Date) =>
  async (messages: OutgoingMessage[]): Promise<void> =>
    publish([...messages, ...(await settlementEvents(deps, messages, clock()))]);
