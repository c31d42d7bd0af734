import { PORTIN_COMMAND_RECORDS } from '../../domain/portin/records';
import type { Handler, HandlerRegistration } from '../types';
import { createCancelPortIn } from './cancel-port-in';
import { createCheckEligibility } from './check-eligibility';
import { createCreatePortIn } from './create-port-in';
import type { PortInDeps } from './deps';
import { createQueryPortIn } from './query-port-in';
import { createUpdatePortIn } from './update-port-in';

export type { PortInDeps } from './deps';
export { createNpResponseProcessor, type NpResponseMessage, type NpResponseProcessor } from './np-response-processor';
export { createExpirySweeper, type ExpirySweeper, type ExpirySweeperOptions } from './expiry-sweeper';

/** The five port-in command handlers, by command record. */
export function createPortInHandlers(deps: PortInDeps): HandlerRegistration[] {
  const handlers: Record<keyof typeof PORTIN_COMMAND_RECORDS, Handler> = {
    CheckPortInEligibility: createCheckEligibility({
      numbers: { subscriptionStatus: async (gpsi) => (await deps.subscriptions.status(gpsi))?.status },
      portIns: deps.store,
      nonPortableRanges: deps.nonPortableRanges,
    }),
    CreatePortIn: createCreatePortIn(deps),
    UpdatePortIn: createUpdatePortIn(deps),
    CancelPortIn: createCancelPortIn(deps),
    QueryPortIn: createQueryPortIn(deps),
  };
  return (Object.keys(handlers) as (keyof typeof handlers)[]).map((operation) => ({
    domain: 'portin',
    commandRecord: PORTIN_COMMAND_RECORDS[operation].command,
    replyRecord: PORTIN_COMMAND_RECORDS[operation].reply,
    handle: handlers[operation],
  }));
}
