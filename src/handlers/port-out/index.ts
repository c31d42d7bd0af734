import type { FieldProblem } from '../../contract/errors';
import type { HandlerRegistration } from '../../contract/handlers';
import { PORTOUT_COMMAND_RECORDS } from '../../domain/port-out/records';
import { checkAnswerPortOut, checkQueryPortOut } from '../../domain/port-out/validate';
import { createAnswerPortOut } from './answer-port-out';
import type { PortOutDeps } from './ports';
import { createQueryPortOut } from './query-port-out';

export type { PortOutDeps } from './ports';
export { createPortOutNpProcessor } from './np-records';

/** The port-out commands, on the port-in topic: the partner's answer, and the query. */
export function createPortOutHandlers(deps: PortOutDeps): HandlerRegistration[] {
  const parts: Record<keyof typeof PORTOUT_COMMAND_RECORDS, Pick<HandlerRegistration, 'handle' | 'validate' | 'readOnly'>> = {
    AnswerPortOut: { validate: (raw): FieldProblem[] => checkAnswerPortOut(raw).problems, handle: createAnswerPortOut(deps) },
    QueryPortOut: { validate: (raw): FieldProblem[] => checkQueryPortOut(raw).problems, handle: createQueryPortOut(deps), readOnly: true },
  };
  return (Object.keys(parts) as (keyof typeof parts)[]).map((operation) => ({
    domain: 'portin',
    commandRecord: PORTOUT_COMMAND_RECORDS[operation].command,
    replyRecord: PORTOUT_COMMAND_RECORDS[operation].reply,
    ...parts[operation],
  }));
}
