import { ServiceError, type FieldProblem } from '../../contract/errors';

/** Collects every problem of a command so the reply lists them all at once, not only the first. */
export class Problems {
  readonly list: FieldProblem[] = [];

  add(path: string, reason: string): this {
    this.list.push({ path, reason });
    return this;
  }

  get ok(): boolean {
    return this.list.length === 0;
  }
}

/**
 * The one convention of every command validator: check every field, then return all the problems found
 * with what could be read of the command (`value`, undefined when nothing usable was). Validators never
 * throw; the caller decides — the pipeline lists the problems before a handler runs, a handler turns them
 * into its BAD_REQUEST with `orBadRequest`.
 */
export interface Checked<T> {
  problems: FieldProblem[];
  value: T;
}

export const checked = <T>(problems: Problems, value: T): Checked<T> => ({ problems: problems.list, value });

/** The command when it has no problem; otherwise one BAD_REQUEST listing them all. */
export function orBadRequest<T>(result: Checked<T | undefined>): T {
  if (result.problems.length > 0 || result.value === undefined) throw ServiceError.badRequest(result.problems);
  return result.value;
}

export interface StringRule {
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Human text for the pattern, used in the reason instead of the raw regex when given. */
  patternText?: string;
  oneOf?: readonly string[];
}

const isBlank = (value: unknown): boolean => value === null || value === undefined;

/** Checks one optional-or-required string field; returns true when it is present and valid. */
export function checkString(problems: Problems, path: string, value: unknown, rule: StringRule): boolean {
  if (isBlank(value)) {
    if (rule.required) problems.add(path, 'is required');
    return false;
  }
  if (typeof value !== 'string') {
    problems.add(path, 'must be a string');
    return false;
  }
  const before = problems.list.length;
  if (rule.min !== undefined && value.length < rule.min) problems.add(path, `must be at least ${rule.min} characters`);
  if (rule.max !== undefined && value.length > rule.max) problems.add(path, `must be at most ${rule.max} characters`);
  if (rule.pattern && !rule.pattern.test(value)) {
    problems.add(path, `must match ${rule.patternText ?? rule.pattern.source}`);
  }
  if (rule.oneOf && !rule.oneOf.includes(value)) problems.add(path, `must be one of ${rule.oneOf.join(', ')}`);
  return problems.list.length === before;
}

export interface IntegerRule {
  required?: boolean;
  min?: number;
  max?: number;
}

export function checkInteger(problems: Problems, path: string, value: unknown, rule: IntegerRule): boolean {
  if (isBlank(value)) {
    if (rule.required) problems.add(path, 'is required');
    return false;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    problems.add(path, 'must be a whole number');
    return false;
  }
  const inRange = (rule.min === undefined || value >= rule.min) && (rule.max === undefined || value <= rule.max);
  if (!inRange) problems.add(path, `must be between ${rule.min ?? '-∞'} and ${rule.max ?? '∞'}`);
  return inRange;
}

export interface ArrayRule {
  required?: boolean;
  minItems?: number;
  maxItems?: number;
}

/** Checks an array's presence and length; the caller validates items with the returned array. */
export function checkArray(problems: Problems, path: string, value: unknown, rule: ArrayRule): unknown[] | undefined {
  if (isBlank(value)) {
    if (rule.required) problems.add(path, 'is required');
    return undefined;
  }
  if (!Array.isArray(value)) {
    problems.add(path, 'must be an array');
    return undefined;
  }
  if (rule.minItems !== undefined && value.length < rule.minItems) problems.add(path, `must have at least ${rule.minItems} item(s)`);
  if (rule.maxItems !== undefined && value.length > rule.maxItems) {
    problems.add(path, `must have at most ${rule.maxItems} item(s)`);
    return undefined; // a hostile array is not walked item by item
  }
  return value as unknown[];
}
