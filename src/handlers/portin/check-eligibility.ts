import type { NonPortableRange } from '../../config';
import { ServiceError } from '../../errors/codes';
import { decideEligibility } from '../../domain/portin/eligibility';
import { Problems, checkString } from '../../domain/validation/problems';
import { GPSI } from '../../domain/validation/spec-fields';
import type { Handler } from '../types';

export interface CheckPortInEligibility {
  gpsi: string;
}

/** What eligibility needs to know about a number; implemented over Redis by the subscription store. */
export interface NumberFacts {
  subscriptionStatus(gpsi: string): Promise<string | undefined>;
}

export function validateEligibilityCommand(command: CheckPortInEligibility): void {
  const problems = new Problems();
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  if (!problems.ok) throw ServiceError.badRequest(problems.list);
}

export const createCheckEligibility = (deps: { numbers: NumberFacts; nonPortableRanges: readonly NonPortableRange[] }): Handler<CheckPortInEligibility> =>
  async (command, context) => {
    validateEligibilityCommand(command);
    const status = await deps.numbers.subscriptionStatus(command.gpsi);
    const decision = decideEligibility({
      gpsi: command.gpsi,
      hasActiveSubscription: status === 'ACTIVE',
      nonPortableRanges: deps.nonPortableRanges,
    });
    return { reply: { status: 'Success', checkedDate: context.now.toISOString(), ...decision } };
  };
