import { ServiceError, type FieldProblem } from '../../contract/errors';
import { rawCatalogProblems } from '../../domain/portin/catalog-check';
import { PORTIN_COMMAND_RECORDS } from '../../domain/portin/records';
import { dueDateRules } from '../../domain/portin/request';
import { validateCancelPortIn, validateCreatePortIn, validateQueryPortIn, validateUpdatePortIn } from '../../domain/portin/validate-commands';
import type { HandlerRegistration } from '../../contract/handlers';
import { createCancelPortIn } from './cancel-port-in';
import { createCheckEligibility, validateEligibilityCommand } from './check-eligibility';
import { createCreatePortIn } from './create-port-in';
import type { PortInDeps } from './deps';
import { createQueryPortIn } from './query-port-in';
import { createUpdatePortIn } from './update-port-in';

export type { PortInDeps } from './deps';
export { createNpResponseProcessor, type NpResponseMessage, type NpResponseProcessor } from './np-response-processor';

type Parts = Pick<HandlerRegistration, 'handle' | 'validate' | 'readOnly'>;

/** The problems a throwing validator finds, for the worker to list with the header problems. */
function problemsOf(validate: (raw: unknown, now: Date) => unknown): (raw: unknown, now: Date) => FieldProblem[] {
  return (raw, now) => {
    try {
      validate(raw, now);
      return [];
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'BAD_REQUEST') return error.problems;
      throw error;
    }
  };
}

/** The five port-in command handlers, by command record; `validate` runs before each (and again inside it). */
export function createPortInHandlers(deps: PortInDeps): HandlerRegistration[] {
  const parts: Record<keyof typeof PORTIN_COMMAND_RECORDS, Parts> = {
    CheckPortInEligibility: {
      validate: validateEligibilityCommand,
      handle: createCheckEligibility({
        numbers: { subscriptionStatus: async (gpsi) => (await deps.subscriptions.status(gpsi))?.status },
        portIns: deps.store,
        nonPortableRanges: deps.nonPortableRanges,
      }),
      readOnly: true,
    },
    CreatePortIn: {
      validate: (raw, now) => {
        const problems = problemsOf((command, at) => validateCreatePortIn(command, dueDateRules(deps.settings, at)))(raw, now);
        return [...problems, ...rawCatalogProblems(raw, deps.catalog, problems)];
      },
      handle: createCreatePortIn(deps),
    },
    UpdatePortIn: { validate: problemsOf((command, at) => validateUpdatePortIn(command, dueDateRules(deps.settings, at))), handle: createUpdatePortIn(deps) },
    CancelPortIn: { validate: problemsOf(validateCancelPortIn), handle: createCancelPortIn(deps) },
    QueryPortIn: { validate: problemsOf(validateQueryPortIn), handle: createQueryPortIn(deps), readOnly: true },
  };
  return (Object.keys(parts) as (keyof typeof parts)[]).map((operation) => ({
    domain: 'portin',
    commandRecord: PORTIN_COMMAND_RECORDS[operation].command,
    replyRecord: PORTIN_COMMAND_RECORDS[operation].reply,
    ...parts[operation],
  }));
}
