import type { OutgoingMessage } from '../../contract/messages';
import { balanceEvent, deterministicId, wireChange } from '../balance/billing-events';
import type { BalanceOutcome } from '../balance/outcome';
import type { CreditEvent } from './records';

/** BalanceToppedUp or BalanceAdjusted from a recorded outcome; `idSeed` (the command id) makes its CloudEvents id. */
export const creditEvent = (type: CreditEvent, outcome: BalanceOutcome, fields: Record<string, unknown>, idSeed: string): OutgoingMessage =>
  balanceEvent(type, outcome, deterministicId(`${idSeed}/${type}`), { ...fields, changes: outcome.changes.map(wireChange) });
