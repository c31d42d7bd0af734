import type { Handler } from '../../contract/handlers';
import { checkEligibilityList } from '../../domain/port-orders/validate';
import { orBadRequest } from '../../domain/validation/problems';
import { createCheckEligibility } from '../portin/check-eligibility';
import { mapBounded } from './each-number';
import type { PortOrderDeps } from './ports';

/** CheckPortOrderEligibility: each number answered by the CheckPortInEligibility handler, in the order asked. */
export const createCheckPortOrderEligibility = (deps: PortOrderDeps): Handler => {
  const checkOne = createCheckEligibility({ numbers: deps.portin.numbers, nonPortableRanges: deps.portin.nonPortableRanges });
  return async (raw, context) => {
    const numbers = orBadRequest(checkEligibilityList(raw));
    const answers = await mapBounded(numbers, deps.concurrency, async (gpsi) => {
      const { reply } = await checkOne({ gpsi }, context);
      return { gpsi, eligibilityStatus: reply.eligibilityStatus, reasonCode: reply.reasonCode ?? null, reasonDesc: reply.reasonDesc ?? null };
    });
    return { reply: { status: 'Success', checkedDate: context.now.toISOString(), numbers: answers } };
  };
};
