import { decideEligibility, type NonPortableRange } from '../../domain/portin/eligibility';
import { isInProgress } from '../../domain/portin/lifecycle';
import { Problems, checkString, checked, orBadRequest, type Checked } from '../../domain/validation/problems';
import { GPSI } from '../../domain/validation/spec-fields';
import type { Handler } from '../../contract/handlers';
import type { NumberFacts } from './ports';

export interface CheckPortInEligibility {
  gpsi: string;
}

export function checkEligibility(command: CheckPortInEligibility): Checked<CheckPortInEligibility | undefined> {
  const problems = new Problems();
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  return checked(problems, problems.ok ? command : undefined);
}

export interface EligibilityDeps {
  numbers: NumberFacts;
  nonPortableRanges: readonly NonPortableRange[];
}

export const createCheckEligibility =
  (deps: EligibilityDeps): Handler<CheckPortInEligibility> =>
  async (command, context) => {
    orBadRequest(checkEligibility(command));
    const { subscriptionStatus: status, portIn } = await deps.numbers.read(command.gpsi);
    const decision = decideEligibility({
      gpsi: command.gpsi,
      hasActiveSubscription: status === 'ACTIVE',
      // a PENDING subscription belongs to a port-in not yet completed
      hasPortInProgress: (portIn !== undefined && isInProgress(portIn.portStatus)) || status === 'PENDING',
      nonPortableRanges: deps.nonPortableRanges,
    });
    return { reply: { status: 'Success', checkedDate: context.now.toISOString(), ...decision } };
  };
