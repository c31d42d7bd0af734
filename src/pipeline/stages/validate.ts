import type { Domain } from '../../contract/topics';
import type { RoutedEnvelope } from '../envelope';
import { answerError } from './answer';
import type { ProcessOutcome, ProcessorDeps } from './context';
import type { Decoded } from './decode';

/**
 * Validation: the header problems found on the way (envelope, reply route) and every field problem of the
 * command's own pure validator, listed together in one BAD_REQUEST; the handler does not run.
 */
export async function validate(deps: ProcessorDeps, domain: Domain, envelope: RoutedEnvelope, { decoded, registration, operation }: Decoded): Promise<ProcessOutcome | undefined> {
  const problems = [...envelope.problems, ...(registration.validate?.(decoded.value, deps.clock()) ?? [])];
  if (problems.length === 0) return undefined;
  return answerError(deps, domain, envelope, operation, 'BAD_REQUEST', `The command is invalid: ${problems.length} problem(s)`, problems);
}
