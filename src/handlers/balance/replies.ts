import { wireSubBalance } from '../../domain/balance/billing-events';
import type { ShownSubBalance } from '../../domain/balance/model';
import { BALANCE_TYPE_MAIN } from '../../domain/balance/validation';
import type { CommandContext } from '../../contract/handlers';
import type { CommandMeta } from './ports';

/** Balances as service-spec 2.10 shows them: one balance of type Main holding every sub-balance. */
export const wireBalances = (balances: readonly ShownSubBalance[]) => [{ balanceType: BALANCE_TYPE_MAIN, subBalances: balances.map(wireSubBalance) }];

/** The reply of every balance operation: status Success and the balances after it. */
export const successReply = (balances: readonly ShownSubBalance[]) => ({ status: 'Success', balances: wireBalances(balances) });

/** The store's view of a command; validation has made sure the wholesale customer is there. */
export const commandMeta = (gpsi: string, context: CommandContext): CommandMeta => ({
  gpsi,
  wholesaleCustomerId: context.wholesaleCustomerId!,
  visibleCustomerIds: context.visibleCustomerIds,
  commandId: context.commandId,
  correlationId: context.correlationId,
  operation: context.operation,
  at: context.now.toISOString(),
  fingerprint: context.fingerprint,
  ...(context.refuseNew ? { refuseNew: context.refuseNew } : {}),
});
