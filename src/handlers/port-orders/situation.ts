import type { FieldProblem } from '../../contract/errors';
import { dueDateRules } from '../../domain/portin/request';
import { createPortInSituation } from '../../domain/portin/situation';
import type { PortOrderDeps } from './ports';

/** The order's shared due date and plan against today and the catalog, judged once on its first number's CreatePortIn (every number shares them). */
export const orderSituation = (deps: PortOrderDeps, firstPortIn: Record<string, unknown> | undefined, now: Date): FieldProblem[] =>
  firstPortIn ? createPortInSituation(firstPortIn, dueDateRules(deps.portin.settings, now), deps.portin.catalog) : [];
