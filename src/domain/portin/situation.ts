import type { FieldProblem } from '../../contract/errors';
import type { Catalog } from '../catalog/catalog';
import { rawCatalogProblems } from './catalog-check';
import { dueDateProblem, isDateTime, type DueDateRules } from './due-date';
import { checkCreatePortIn } from './validate-commands';

// The problems of a port-in command that depend on when and where it is handled, not on the command
// alone: its due date against the calendar seen from `rules.now`, its plan and buckets against the catalog.
// A change applied while they held answers its recorded outcome whatever they say later; they refuse only a
// change not applied yet. A malformed field is the form's problem (validate-commands.ts), not one of these.

const fieldOf = (raw: unknown, name: string): unknown => (typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined);

/** A well-formed desiredDueDate the calendar refuses today (a weekend, too early, too far ahead). */
export function dueDateProblems(raw: unknown, rules: DueDateRules): FieldProblem[] {
  const text = fieldOf(raw, 'desiredDueDate');
  if (typeof text !== 'string' || !isDateTime(text)) return [];
  const problem = dueDateProblem(text, rules);
  return problem ? [{ path: 'desiredDueDate', reason: problem }] : [];
}

/** A CreatePortIn's: its due date, then its plan and buckets (those well-formed enough to look up). */
export const createPortInSituation = (raw: unknown, rules: DueDateRules, catalog: Catalog): FieldProblem[] => [
  ...dueDateProblems(raw, rules),
  ...rawCatalogProblems(raw, catalog, checkCreatePortIn(raw).problems),
];
