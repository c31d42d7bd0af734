import { ServiceError } from '../../contract/errors';
import type { CommandContext, Handler } from '../../contract/handlers';
import type { OutgoingMessage } from '../../contract/messages';
import { payloadFingerprint } from '../../domain/portin/ids';
import { orderEvent } from '../../domain/port-orders/messages';
import { newPortOrder, type PortOrder, type PortOrderNumber } from '../../domain/port-orders/order';
import { splitByProvider } from '../../domain/port-orders/providers';
import { deriveOrderStatus, type OrderNumberStatus } from '../../domain/port-orders/status';
import { checkCreatePortOrder, type CreatePortOrderCommand } from '../../domain/port-orders/validate';
import { orBadRequest } from '../../domain/validation/problems';
import { refuseNewChange } from '../portin/apply-change';
import { createCreatePortIn } from '../portin/create-port-in';
import { ownerOf } from '../portin/deps';
import { mapBounded, runForNumber } from './each-number';
import type { PortOrderDeps } from './ports';
import { orderSituation } from './situation';
import { numberView } from './views';

/**
 * CreatePortOrder. The order is stored first (CREATING, with its numbers), then each number is created
 * through the CreatePortIn handler itself, under a command id derived from (owner, orderId, gpsi): a rerun —
 * a redelivery, a retry under the same orderId, a worker that died mid-order — replays the numbers done and
 * creates the rest, so no number is created twice and none is lost. Once every number has its result the
 * order is CREATED with each number's port-in or refusal; a number refused then stays refused in this order.
 */
export const createCreatePortOrder = (deps: PortOrderDeps): Handler => {
  const createPortIn = createCreatePortIn(deps.portin);
  return async (raw, context) => {
    const command = orBadRequest(checkCreatePortOrder(raw));
    const owner = ownerOf(context);
    const fingerprint = payloadFingerprint(command);
    let order = await deps.orders.read(owner, command.orderId);
    if (!order) {
      refuseNewChange(context);
      // judged once for the order rather than refused per number
      const problems = orderSituation(deps, command.numbers[0].portIn, context.now);
      if (problems.length > 0) throw ServiceError.badRequest(problems);
      order = await deps.orders.create(
        newPortOrder({ orderId: command.orderId, owner, fingerprint, correlationId: context.correlationId, commandId: context.commandId, now: context.now }, command.numbers),
      );
    }
    if (order.fingerprint !== fingerprint) {
      throw new ServiceError('CONFLICT', `orderId ${command.orderId} was already used with a different payload`, [{ path: 'orderId', reason: 'is already used by another port order' }]);
    }
    return createNumbers(deps, createPortIn, command, order, context);
  };
};

async function createNumbers(deps: PortOrderDeps, createPortIn: Handler, command: CreatePortOrderCommand, stored: PortOrder, context: CommandContext) {
  const portIns = new Map(command.numbers.map((n) => [n.gpsi, n.portIn]));
  const outcomes = await mapBounded(stored.numbers, deps.concurrency, async (number) => {
    if (stored.state === 'CREATED' && number.refusal) return { number, messages: [] as OutgoingMessage[], status: 'REFUSED' as OrderNumberStatus };
    const result = await runForNumber(createPortIn, portIns.get(number.gpsi)!, context, 'CreatePortIn', ['port-order', stored.owner, stored.orderId, number.gpsi]);
    if (result.kind === 'refused') return { number: { ...number, refusal: result.refusal }, messages: [], status: 'REFUSED' as OrderNumberStatus };
    const ref = number.requestId ? undefined : await deps.portin.store.findTransaction(stored.owner, number.partnerTransactionId);
    const reply = result.result.reply as { portStatus: OrderNumberStatus };
    return { number: { ...number, requestId: number.requestId ?? ref?.requestId }, messages: result.result.messages ?? [], status: reply.portStatus };
  });
  const numbers: PortOrderNumber[] = outcomes.map((o) => o.number);
  let order = stored;
  if (stored.state === 'CREATING') {
    const created: PortOrder = { ...stored, state: 'CREATED', version: stored.version + 1, numbers };
    // another worker may have finished the same order meanwhile: its record is the order
    order = (await deps.orders.update(created, stored.version)) ? created : ((await deps.orders.read(stored.owner, stored.orderId)) ?? created);
  }
  // every run: a worker that died between the two writes left the order CREATED without its index
  await deps.orders.indexMembers(order);
  const statuses = outcomes.map((o) => o.status);
  const orderStatus = deriveOrderStatus(statuses);
  // the order's events come from its creation (its first command), so every rerun repeats them (same ce_id)
  const cause = { causeId: `create:${order.createdAt}`, at: new Date(order.createdAt), correlationId: order.correlationId, orderStatus };
  // a retry of a created order under another command id only answers: the creating command's own
  // redelivery is what publishes its messages again (at least once)
  const publishes = stored.state === 'CREATING' || context.commandId === stored.commandId;
  const messages = publishes ? [...outcomes.flatMap((o) => o.messages), orderEvent(order, 'SPLIT', cause), orderEvent(order, 'CREATED', cause)] : [];
  const refusedCount = order.numbers.filter((n) => n.refusal).length;
  const groups = splitByProvider(order.numbers.filter((n) => !n.refusal).map((n) => n.gpsi)).map((g) => ({ losingProvider: g.losingProvider, numberCount: g.numbers.length }));
  return {
    reply: {
      status: 'Success',
      orderId: order.orderId,
      orderStatus,
      numberCount: order.numbers.length,
      createdCount: order.numbers.length - refusedCount,
      refusedCount,
      groups,
      numbers: order.numbers.map((n, i) => numberView(n, n.refusal ? undefined : statuses[i])),
    },
    messages,
    ...(stored.state === 'CREATED' ? { replayed: true } : {}),
  };
}
