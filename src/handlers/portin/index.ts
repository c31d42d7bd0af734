import type { FieldProblem } from '../../contract/errors';
import type { Checked } from '../../domain/validation/problems';
import { PORTIN_COMMAND_RECORDS } from '../../domain/portin/records';
import { dueDateRules } from '../../domain/portin/request';
import { createPortInSituation, dueDateProblems } from '../../domain/portin/situation';
import { checkCancelPortIn, checkCreatePortIn, checkQueryPortIn, checkUpdatePortIn } from '../../domain/portin/validate-commands';
import type { HandlerRegistration } from '../../contract/handlers';
import { createCancelPortIn } from './cancel-port-in';
import { checkEligibility, createCheckEligibility } from './check-eligibility';
import { createCreatePortIn } from './create-port-in';
import type { PortInDeps } from './deps';
import { createQueryPortIn } from './query-port-in';
import { createUpdatePortIn } from './update-port-in';

export type { PortInDeps } from './deps';
export { createNpResponseProcessor, type NpResponseMessage, type NpResponseProcessor } from './np-response-processor';

type Parts = Pick<HandlerRegistration, 'handle' | 'validate' | 'situation' | 'readOnly'>;

/** A validator's problems, for the pipeline to list before the handler runs. */
const problemsOf =
  <T>(check: (raw: T, now: Date) => Checked<unknown>) =>
  (raw: T, now: Date): FieldProblem[] =>
    check(raw, now).problems;

/**
 * The five port-in command handlers, by command record; `validate` (the form) and `situation` (the due date
 * against today, the catalog) run before each, and again inside it — the situation only after the change's
 * recorded outcome is read, which wins.
 */
export function createPortInHandlers(deps: PortInDeps): HandlerRegistration[] {
  const parts: Record<keyof typeof PORTIN_COMMAND_RECORDS, Parts> = {
    CheckPortInEligibility: {
      validate: problemsOf(checkEligibility),
      handle: createCheckEligibility({
        numbers: deps.numbers,
        nonPortableRanges: deps.nonPortableRanges,
      }),
      readOnly: true,
    },
    CreatePortIn: {
      validate: (raw) => checkCreatePortIn(raw).problems,
      situation: (raw, now) => createPortInSituation(raw, dueDateRules(deps.settings, now), deps.catalog),
      handle: createCreatePortIn(deps),
    },
    UpdatePortIn: {
      validate: (raw) => checkUpdatePortIn(raw).problems,
      situation: (raw, now) => dueDateProblems(raw, dueDateRules(deps.settings, now)),
      handle: createUpdatePortIn(deps),
    },
    CancelPortIn: { validate: problemsOf(checkCancelPortIn), handle: createCancelPortIn(deps) },
    QueryPortIn: { validate: problemsOf(checkQueryPortIn), handle: createQueryPortIn(deps), readOnly: true },
  };
  return (Object.keys(parts) as (keyof typeof parts)[]).map((operation) => ({
    domain: 'portin',
    commandRecord: PORTIN_COMMAND_RECORDS[operation].command,
    replyRecord: PORTIN_COMMAND_RECORDS[operation].reply,
    ...parts[operation],
  }));
}
