import type { NonPortableRange } from '../../config';
import { ServiceError, type FieldProblem } from '../../errors/codes';
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

export function validateEligibilityCommand(command: CheckPortInEligibility): FieldProblem[] {
  const problems = new Problems();
  checkString(problems, 'gpsi', command.gpsi, { ...GPSI, required: true });
  return problems.list;
}

export const createCheckEligibility = (deps: { numbers: NumberFacts; nonPortableRanges: readonly NonPortableRange[] }): Handler<CheckPortInEligibility> =>
  async (command, context) => {
    const problems = validateEligibilityCommand(command);
    if (problems.length > 0) throw ServiceError.badRequest(problems);
    const status = await deps.numbers.subscriptionStatus(command.gpsi);
    const decision = decideEligibility({
      gpsi: command.gpsi,
      hasActiveSubscription: status === 'ACTIVE',
      nonPortableRanges: deps.nonPortableRanges,
    });
    return { reply: { status: 'Success', checkedDate: context.now.toISOString(), ...decision } };
  };
