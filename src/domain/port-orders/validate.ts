import type { FieldProblem } from '../../contract/errors';
import { checkCreatePortIn } from '../portin/validate-commands';
import { Problems, checkString, checked, type Checked } from '../validation/problems';
import { GPSI } from '../validation/spec-fields';

/** The most numbers one order (or one eligibility check) may hold. */
export const MAX_ORDER_NUMBERS = 1000;

/** The partner's order id: short enough that `<orderId>-<gpsi>` is a valid partnerTransactionId (36). */
export const ORDER_ID = { required: true, min: 1, max: 20, pattern: /^[A-Za-z0-9_-]+$/, patternText: 'letters, digits, hyphens or underscores' };

/** The fields a number of an order may set for itself; the others are the order's, shared by every number. */
const NUMBER_FIELDS = ['gpsi', 'partnerTransactionId', 'subscriberId', 'iccid'] as const;

export interface OrderNumber {
  gpsi: string;
  partnerTransactionId: string;
  /** The number's CreatePortIn, as a partner would send it alone (validated again by the CreatePortIn path). */
  portIn: Record<string, unknown>;
}

export interface CreatePortOrderCommand {
  orderId: string;
  numbers: OrderNumber[];
}

type Raw = Record<string, unknown>;

const asRecord = (value: unknown): Raw => (value !== null && typeof value === 'object' ? (value as Raw) : {});

/** One number's CreatePortIn: the order's shared fields, then what the number sets for itself. */
export function portInOf(order: Raw, number: Raw): Record<string, unknown> {
  const { orderId, numbers: _numbers, ...shared } = order;
  void _numbers;
  return {
    ...shared,
    gpsi: number.gpsi ?? null,
    partnerTransactionId: number.partnerTransactionId ?? `${String(orderId)}-${String(number.gpsi)}`,
    subscriberId: number.subscriberId ?? order.subscriberId ?? null,
    iccid: number.iccid ?? null,
    pei: null,
    eid: null,
  };
}

const isNumberField = (path: string): boolean => (NUMBER_FIELDS as readonly string[]).some((field) => path === field || path.startsWith(`${field}.`));

/**
 * CreatePortOrder: the order id, the size (1 to MAX_ORDER_NUMBERS), and each number as its own CreatePortIn
 * would be checked — a number's own fields under `numbers[i].…`, the shared fields once under their own
 * path; a number or partnerTransactionId twice in the order is named at each later place. Every problem
 * at once; never throws.
 */
export function checkCreatePortOrder(value: unknown): Checked<CreatePortOrderCommand | undefined> {
  const problems = new Problems();
  const raw = asRecord(value);
  checkString(problems, 'orderId', raw.orderId, ORDER_ID);
  const numbers = Array.isArray(raw.numbers) ? (raw.numbers as unknown[]).map(asRecord) : undefined;
  if (!numbers) problems.add('numbers', 'is required');
  else if (numbers.length === 0) problems.add('numbers', 'must hold at least one number');
  else if (numbers.length > MAX_ORDER_NUMBERS) problems.add('numbers', `must hold at most ${MAX_ORDER_NUMBERS} numbers (has ${numbers.length})`);
  const checkable = numbers && numbers.length > 0 && numbers.length <= MAX_ORDER_NUMBERS ? numbers : [{ gpsi: '00000000000' }];
  const shared = new Map<string, FieldProblem>();
  const firstAt = { gpsi: new Map<string, number>(), partnerTransactionId: new Map<string, number>() };
  const accepted: OrderNumber[] = [];
  checkable.forEach((number, index) => {
    const portIn = portInOf(raw, number);
    const result = checkCreatePortIn(portIn);
    for (const problem of result.problems) {
      if (!isNumberField(problem.path)) shared.set(`${problem.path}\u0000${problem.reason}`, problem);
      else if (checkable === numbers) problems.add(`numbers[${index}].${problem.path}`, problem.reason);
    }
    if (checkable !== numbers || typeof portIn.gpsi !== 'string') return;
    const gpsi = portIn.gpsi;
    const partnerTransactionId = String(portIn.partnerTransactionId);
    // a number twice is named once, not again for the partnerTransactionId derived from it
    for (const [field, key] of [
      ['gpsi', gpsi],
      ['partnerTransactionId', partnerTransactionId],
    ] as const) {
      const earlier = firstAt[field].get(key);
      if (earlier === undefined) firstAt[field].set(key, index);
      else {
        problems.add(`numbers[${index}].${field}`, `is already in the order at numbers[${earlier}]`);
        break;
      }
    }
    if (result.value) accepted.push({ gpsi, partnerTransactionId, portIn });
  });
  problems.list.push(...shared.values());
  if (!problems.ok) return checked(problems, undefined);
  return checked(problems, { orderId: raw.orderId as string, numbers: accepted });
}

/** QueryPortOrder and CancelPortOrder: the order id, and for a cancel the one number it may name. */
export function checkOrderRef(value: unknown): Checked<{ orderId: string; gpsi?: string } | undefined> {
  const problems = new Problems();
  const raw = asRecord(value);
  checkString(problems, 'orderId', raw.orderId, ORDER_ID);
  checkString(problems, 'gpsi', raw.gpsi, GPSI);
  if (!problems.ok) return checked(problems, undefined);
  return checked(problems, { orderId: raw.orderId as string, ...(typeof raw.gpsi === 'string' ? { gpsi: raw.gpsi } : {}) });
}

/** CheckPortOrderEligibility: 1 to MAX_ORDER_NUMBERS numbers, each a gpsi; every bad one named. */
export function checkEligibilityList(value: unknown): Checked<string[] | undefined> {
  const problems = new Problems();
  const numbers = asRecord(value).numbers;
  if (!Array.isArray(numbers)) problems.add('numbers', 'is required');
  else if (numbers.length === 0) problems.add('numbers', 'must hold at least one number');
  else if (numbers.length > MAX_ORDER_NUMBERS) problems.add('numbers', `must hold at most ${MAX_ORDER_NUMBERS} numbers (has ${numbers.length})`);
  else numbers.forEach((gpsi, index) => checkString(problems, `numbers[${index}]`, gpsi, { ...GPSI, required: true }));
  if (!problems.ok) return checked(problems, undefined);
  return checked(problems, numbers as string[]);
}
