import type { FieldProblem } from '../../contract/errors';
import type { HandlerRegistration } from '../../contract/handlers';
import { PORT_ORDER_COMMAND_RECORDS } from '../../domain/port-orders/records';
import { checkCreatePortOrder, checkEligibilityList, checkOrderRef } from '../../domain/port-orders/validate';
import { createCancelPortOrder } from './cancel-port-order';
import { createCheckPortOrderEligibility } from './check-order-eligibility';
import { createCreatePortOrder } from './create-port-order';
import type { PortOrderDeps } from './ports';
import { createQueryPortOrder } from './query-port-order';
import { orderSituation } from './situation';

export type { PortOrderDeps, PortOrderStore } from './ports';
export { withCancelSettlement, withExpirySettlement, withOrderSettlement } from './settlement';

/** The port-order commands, on the port-in topics: each number goes through the single-number handlers. */
export function createPortOrderHandlers(deps: PortOrderDeps): HandlerRegistration[] {
  const parts: Record<keyof typeof PORT_ORDER_COMMAND_RECORDS, Pick<HandlerRegistration, 'handle' | 'validate' | 'situation' | 'readOnly'>> = {
    CreatePortOrder: {
      validate: (raw): FieldProblem[] => checkCreatePortOrder(raw).problems,
      situation: (raw, now) => orderSituation(deps, checkCreatePortOrder(raw).value?.numbers[0]?.portIn, now),
      handle: createCreatePortOrder(deps),
    },
    QueryPortOrder: { validate: (raw): FieldProblem[] => checkOrderRef(raw).problems, handle: createQueryPortOrder(deps), readOnly: true },
    CancelPortOrder: { validate: (raw): FieldProblem[] => checkOrderRef(raw).problems, handle: createCancelPortOrder(deps) },
    CheckPortOrderEligibility: { validate: (raw): FieldProblem[] => checkEligibilityList(raw).problems, handle: createCheckPortOrderEligibility(deps), readOnly: true },
  };
  return (Object.keys(parts) as (keyof typeof parts)[]).map((operation) => ({
    domain: 'portin',
    commandRecord: PORT_ORDER_COMMAND_RECORDS[operation].command,
    replyRecord: PORT_ORDER_COMMAND_RECORDS[operation].reply,
    ...parts[operation],
  }));
}
