import { Problems, checkArray, checkInteger, checkString, checked, type Checked } from '../validation/problems';
import { EID, GPSI, ICCID, PARTNER_TRANSACTION_ID, PEI, PORT_ORDER_ID, SUBSCRIBER_ID, WHOLESALE_PLAN_ID } from '../validation/spec-fields';
import type { CancelPortInCommand, CreatePortInCommand, ProductChange, QueryPortInCommand, UpdatePortInCommand } from './commands';
import { DATE_TIME_TEXT, dueDateProblem, isDateTime, type DueDateRules } from './due-date';
import { checkPortInfo } from './port-info';

/**
 * Validation of the four port-in commands, pure, in the convention of every validator (validation/problems.ts):
 * each function checks every field and returns every problem (paths like `portInfo.contact.firstName`,
 * `bucketRefId[2]`) with the normalised command, or with no command when there is any problem. Arrays are capped so a hostile message is refused before it is walked.
 */
export const LIMITS = { bucketRefIds: 20, products: 20, characteristics: 20 } as const;
export const E_SIM_DELIVERY_METHODS = ['QR'] as const;
export const BILL_CYCLE_FREQUENCIES = ['MONTHLY'] as const;
/** The spec names add, remove and update without their exact spelling: any letter case is accepted. */
export const PRODUCT_ACTIONS = ['add', 'remove', 'update'] as const;

type Raw = Record<string, unknown>;

const asRecord = (problems: Problems, value: unknown): Raw => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Raw;
  problems.add('', 'the command must be a record');
  return {};
};

const present = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** The problems, and no command to act on. */
const refused = (problems: Problems): Checked<undefined> => checked(problems, undefined);

function checkBucketRefIds(problems: Problems, value: unknown): string[] {
  const items = checkArray(problems, 'bucketRefId', value, { maxItems: LIMITS.bucketRefIds }) ?? [];
  return items.filter((item, i): item is string => checkString(problems, `bucketRefId[${i}]`, item, { required: true, min: 1, max: 36 }));
}

function checkProducts(problems: Problems, value: unknown): ProductChange[] {
  const items = checkArray(problems, 'products', value, { maxItems: LIMITS.products }) ?? [];
  const products: ProductChange[] = [];
  items.forEach((item, i) => {
    const path = `products[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.add(path, 'must be an object');
      return;
    }
    const raw = item as Raw;
    const productIdOk = checkString(problems, `${path}.productId`, raw.productId, { required: true, min: 1, max: 64 });
    const action = typeof raw.action === 'string' ? raw.action.toLowerCase() : raw.action;
    const actionOk = checkString(problems, `${path}.action`, action, { required: true, oneOf: PRODUCT_ACTIONS });
    const characteristics = (checkArray(problems, `${path}.characteristics`, raw.characteristics, { maxItems: LIMITS.characteristics }) ?? [])
      .map((c, j) => {
        const cPath = `${path}.characteristics[${j}]`;
        const pair = (typeof c === 'object' && c !== null ? c : {}) as Raw;
        const keyOk = checkString(problems, `${cPath}.key`, pair.key, { required: true, min: 1, max: 64 });
        const valueOk = checkString(problems, `${cPath}.value`, pair.value, { required: true, max: 256 });
        return keyOk && valueOk ? { key: pair.key as string, value: pair.value as string } : undefined;
      })
      .filter((c): c is { key: string; value: string } => c !== undefined);
    if (productIdOk && actionOk) products.push({ productId: raw.productId as string, action: action as string, characteristics });
  });
  return products;
}

/**
 * A requested due date: its form always; against the calendar when `rules` say from when (the handler,
 * and the worker's first look, pass the command's time). Returns it normalised to ISO 8601 UTC.
 */
function checkDueDate(problems: Problems, value: unknown, rules: DueDateRules | undefined): string | undefined {
  if (!checkString(problems, 'desiredDueDate', value, { max: 40 })) return undefined;
  const text = value as string;
  if (!isDateTime(text)) {
    problems.add('desiredDueDate', `must be ${DATE_TIME_TEXT}`);
    return undefined;
  }
  const problem = rules && dueDateProblem(text, rules);
  if (problem) problems.add('desiredDueDate', problem);
  return new Date(text).toISOString();
}

/**
 * gpsi is optional in the spec, but a port-in moves a number in: without the number there is nothing to
 * port, to check for eligibility, or to key the request by. It is required here.
 */
export function checkCreatePortIn(value: unknown, dueDates?: DueDateRules): Checked<CreatePortInCommand | undefined> {
  const problems = new Problems();
  const raw = asRecord(problems, value);
  checkString(problems, 'partnerTransactionId', raw.partnerTransactionId, { ...PARTNER_TRANSACTION_ID, required: true });
  checkString(problems, 'subscriberId', raw.subscriberId, { ...SUBSCRIBER_ID, required: true });
  checkString(problems, 'wholesalePlanId', raw.wholesalePlanId, { ...WHOLESALE_PLAN_ID, required: true });
  const bucketRefId = checkBucketRefIds(problems, raw.bucketRefId);
  checkString(problems, 'eSIMDeliveryMethod', raw.eSIMDeliveryMethod, { oneOf: E_SIM_DELIVERY_METHODS });
  checkString(problems, 'billCycleFrequency', raw.billCycleFrequency, { oneOf: BILL_CYCLE_FREQUENCIES });
  checkInteger(problems, 'billCycleStartDay', raw.billCycleStartDay, { min: 1, max: 28 });
  checkString(problems, 'gpsi', raw.gpsi, { ...GPSI, required: true });
  checkString(problems, 'iccid', raw.iccid, ICCID);
  checkString(problems, 'pei', raw.pei, PEI);
  checkString(problems, 'eid', raw.eid, EID);
  const products = checkProducts(problems, raw.products);
  const portInfo = checkPortInfo(problems, 'portInfo', raw.portInfo, 'create');
  const desiredDueDate = checkDueDate(problems, raw.desiredDueDate, dueDates);
  if (!problems.ok || !portInfo) return refused(problems);
  return checked(problems, {
    partnerTransactionId: raw.partnerTransactionId as string,
    subscriberId: raw.subscriberId as string,
    wholesalePlanId: raw.wholesalePlanId as string,
    bucketRefId,
    eSIMDeliveryMethod: present(raw.eSIMDeliveryMethod as 'QR' | null),
    billCycleFrequency: 'MONTHLY',
    billCycleStartDay: present(raw.billCycleStartDay as number | null),
    gpsi: raw.gpsi as string,
    iccid: present(raw.iccid as string | null),
    pei: present(raw.pei as string | null),
    eid: present(raw.eid as string | null),
    products,
    portInfo,
    ...(desiredDueDate ? { desiredDueDate } : {}),
  });
}

export function checkUpdatePortIn(value: unknown, dueDates?: DueDateRules): Checked<UpdatePortInCommand | undefined> {
  const problems = new Problems();
  const raw = asRecord(problems, value);
  checkString(problems, 'partnerTransactionId', raw.partnerTransactionId, { ...PARTNER_TRANSACTION_ID, required: true });
  checkString(problems, 'gpsi', raw.gpsi, { ...GPSI, required: true });
  const updatePortInfo = checkPortInfo(problems, 'updatePortInfo', raw.updatePortInfo, 'update');
  const desiredDueDate = checkDueDate(problems, raw.desiredDueDate, dueDates);
  // a supplement changes something: port information, or (only) the due date
  if (updatePortInfo && problems.ok && Object.keys(updatePortInfo).length === 0 && raw.desiredDueDate == null) {
    problems.add('updatePortInfo', 'must change at least one member, or desiredDueDate must be given');
  }
  if (!problems.ok || !updatePortInfo) return refused(problems);
  return checked(problems, { partnerTransactionId: raw.partnerTransactionId as string, gpsi: raw.gpsi as string, updatePortInfo, ...(desiredDueDate ? { desiredDueDate } : {}) });
}

export function checkCancelPortIn(value: unknown): Checked<CancelPortInCommand | undefined> {
  const problems = new Problems();
  const raw = asRecord(problems, value);
  const hasPtid = checkString(problems, 'partnerTransactionId', raw.partnerTransactionId, PARTNER_TRANSACTION_ID);
  const hasGpsi = checkString(problems, 'gpsi', raw.gpsi, GPSI);
  if (problems.ok && !hasPtid && !hasGpsi) problems.add('partnerTransactionId', 'partnerTransactionId or gpsi is required');
  if (!problems.ok) return refused(problems);
  return checked(problems, { partnerTransactionId: present(raw.partnerTransactionId as string | null), gpsi: present(raw.gpsi as string | null) });
}

export function checkQueryPortIn(value: unknown): Checked<QueryPortInCommand | undefined> {
  const problems = new Problems();
  const raw = asRecord(problems, value);
  const hasGpsi = checkString(problems, 'gpsi', raw.gpsi, GPSI);
  const hasPtid = checkString(problems, 'partnerTransactionId', raw.partnerTransactionId, PARTNER_TRANSACTION_ID);
  const hasOrder = checkString(problems, 'portOrderId', raw.portOrderId, PORT_ORDER_ID);
  if (problems.ok && !hasGpsi && !hasPtid && !hasOrder) problems.add('gpsi', 'gpsi, partnerTransactionId or portOrderId is required');
  if (!problems.ok) return refused(problems);
  return checked(problems, {
    gpsi: present(raw.gpsi as string | null),
    partnerTransactionId: present(raw.partnerTransactionId as string | null),
    portOrderId: present(raw.portOrderId as string | null),
  });
}
