import type { FieldProblem } from '../../contract/errors';
import type { Refusal } from '../../contract/handlers';
import type { Domain } from '../../contract/topics';
import type { RoutedEnvelope } from '../envelope';
import { answerError } from './answer';
import type { Admitted, ProcessOutcome, ProcessorDeps } from './context';
import type { Decoded } from './decode';

/**
 * Validation: the header problems found on the way (envelope, reply route) and every field problem of the
 * command's own pure validator, with those of its situation (due dates against today, the catalog), listed
 * together in one BAD_REQUEST; the handler does not run. A change with problems of its situation only goes
 * on to its handler, refused new (refuseNew): applied when they did not hold, its recorded outcome wins.
 */
export async function validate(
  deps: ProcessorDeps,
  domain: Domain,
  envelope: RoutedEnvelope,
  { decoded, registration, operation }: Decoded,
  admitted: Admitted,
): Promise<ProcessOutcome | Admitted> {
  const now = deps.clock();
  const form = [...envelope.problems, ...(registration.validate?.(decoded.value, now) ?? [])];
  const situation = registration.situation?.(decoded.value, now) ?? [];
  if (form.length === 0 && situation.length === 0) return admitted;
  const stale = admitted.refuseNew?.code === 'STALE_COMMAND' ? admitted.refuseNew : undefined;
  if (form.length === 0 && !registration.readOnly) return { ...admitted, refuseNew: stale ?? situationRefusal(situation) };
  // A stale record is answered for its age (it was not applied), whatever else is wrong with it.
  if (stale) return answerError(deps, domain, envelope, operation, stale.code, stale.message);
  const problems = [...form, ...situation];
  return answerError(deps, domain, envelope, operation, 'BAD_REQUEST', `The command is invalid: ${problems.length} problem(s)`, problems);
}

const situationRefusal = (problems: FieldProblem[]): Refusal => ({ code: 'BAD_REQUEST', message: `The command is invalid: ${problems.length} problem(s)`, problems });
