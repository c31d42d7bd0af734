import { InvalidArgumentError } from 'commander';
import type { OperationName } from '../client/operations';

/**
 * The CLI's operation sub-commands as data: `wholesale <group> <name>` calls `operation`, with the body
 * built from --file/--data and these field flags. The service validates the body and lists every problem.
 */
export interface FieldFlag {
  flags: string;
  description: string;
  field: string;
  /** Turns the flag's text into the field's value (default: the text). */
  parse?: (raw: string, previous: unknown) => unknown;
}

export interface OperationCommand {
  group: 'portin' | 'balance';
  name: string;
  operation: OperationName;
  summary: string;
  fields: FieldFlag[];
  example: string;
}

export function parsePositiveInteger(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('expected a whole number from 1');
  return value;
}

/** A quantity as a number (the service checks its range and decimals and lists every problem). */
function parseNumber(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new InvalidArgumentError('expected a number');
  return value;
}

const collect = (raw: string, previous: unknown): string[] => [
  ...((previous as string[] | undefined) ?? []),
  ...raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

const gpsi: FieldFlag = { flags: '--gpsi <gpsi>', description: 'the number (GPSI/MSISDN, 11 to 15 digits)', field: 'gpsi' };
const reservationId: FieldFlag = { flags: '--reservation <id>', description: "the reservation's id (the charging session's)", field: 'reservationId' };
const subBalance: FieldFlag = { flags: '--sub-balance <id>', description: 'the sub-balance (subBalanceInstId)', field: 'subBalanceInstId' };
const subBalanceType: FieldFlag = { flags: '--type <subBalanceType>', description: "the sub-balance's type (On-Net Data…)", field: 'subBalanceType' };
const unitType: FieldFlag = { flags: '--unit <unitType>', description: "the sub-balance's unit (MB…)", field: 'unitType' };
const amount: FieldFlag = { flags: '--amount <n>', description: 'the amount (above zero, at most 3 decimals)', field: 'amount', parse: (raw) => parseNumber(raw) };
const partnerTransactionId: FieldFlag = { flags: '--partner-transaction-id <id>', description: "the partner's transaction id of the create", field: 'partnerTransactionId' };
const portOrderId: FieldFlag = { flags: '--port-order-id <id>', description: 'the port order id the NP application assigned', field: 'portOrderId' };
const orderId: FieldFlag = { flags: '--order-id <id>', description: "the partner's id of the port order (1 to 20 letters, digits, - or _)", field: 'orderId' };
const desiredDueDate: FieldFlag = {
  flags: '--desired-due-date <iso>',
  description: 'the due date to ask for (ISO 8601 with a zone, a business day no earlier than the earliest allowed)',
  field: 'desiredDueDate',
};
const buckets: FieldFlag = { flags: '--bucket <bucketRefId...>', description: 'catalog bucket id(s); repeat the flag or separate with commas', field: 'bucketRefId', parse: collect };

export const OPERATION_COMMANDS: readonly OperationCommand[] = [
  {
    group: 'portin',
    name: 'eligibility',
    operation: 'checkPortInEligibility',
    summary: 'may this number be ported in?',
    fields: [gpsi],
    example: 'wholesale portin eligibility --gpsi 19459986891',
  },
  {
    group: 'portin',
    name: 'create',
    operation: 'createPortIn',
    summary: 'create a port-in: the order (service-spec 2.4) as JSON',
    fields: [gpsi, partnerTransactionId, desiredDueDate],
    example: 'wholesale portin create --file order.json',
  },
  {
    group: 'portin',
    name: 'update',
    operation: 'updatePortIn',
    summary: 'supplement a port-in that needs resolution or was rejected (updatePortInfo as JSON), or change only its due date',
    fields: [gpsi, partnerTransactionId, desiredDueDate],
    example: 'wholesale portin update --file update.json',
  },
  {
    group: 'portin',
    name: 'cancel',
    operation: 'cancelPortIn',
    summary: 'cancel a port-in (one the NP side is working on waits in CANCEL_PENDING for its answer)',
    fields: [partnerTransactionId, gpsi],
    example: 'wholesale portin cancel --partner-transaction-id PTX-1 --gpsi 19459986891',
  },
  {
    group: 'portin',
    name: 'query',
    operation: 'queryPortIn',
    summary: 'the port-in record, by gpsi, partner transaction id or port order id',
    fields: [gpsi, partnerTransactionId, portOrderId],
    example: 'wholesale portin query --gpsi 19459986891',
  },
  {
    group: 'portin',
    name: 'activate',
    operation: 'activatePortIn',
    summary: 'activate a CONFIRMED port now, inside its activation window (the FOC date, UTC)',
    fields: [gpsi, partnerTransactionId],
    example: 'wholesale portin activate --gpsi 19459986891',
  },
  {
    group: 'portin',
    name: 'answer-port-out',
    operation: 'answerPortOut',
    summary: 'approve or reject a port-out of your number (a rejection names its reason code)',
    fields: [
      gpsi,
      { flags: '--port-out-id <id>', description: 'the port-out asked about (PortOutEvent.portOutId)', field: 'portOutId' },
      { flags: '--decision <decision>', description: 'APPROVE or REJECT', field: 'decision' },
      { flags: '--reason-code <code>', description: 'with REJECT: AN, PN, NM, PF, NA or PO (docs/port-out.md)', field: 'reasonCode' },
    ],
    example: 'wholesale portin answer-port-out --gpsi 19459986891 --port-out-id PORT-OUT-1 --decision APPROVE',
  },
  { group: 'portin', name: 'query-port-out', operation: 'queryPortOut', summary: "the number's latest port-out", fields: [gpsi], example: 'wholesale portin query-port-out --gpsi 19459986891' },
  {
    group: 'portin',
    name: 'create-order',
    operation: 'createPortOrder',
    summary: 'port in many numbers as one order: the shared CreatePortIn fields as JSON, the numbers from flags (docs/port-orders.md)',
    fields: [
      orderId,
      {
        flags: '--number <gpsi...>',
        description: 'a number of the order; repeat the flag or separate with commas',
        field: 'numbers',
        parse: (raw, previous) => [...((previous as { gpsi: string }[] | undefined) ?? []), ...collect(raw, []).map((gpsi) => ({ gpsi }))],
      },
    ],
    example: 'wholesale portin create-order --file order.json --order-id ORD-7 --number 19459986801,19459986802',
  },
  {
    group: 'portin',
    name: 'query-order',
    operation: 'queryPortOrder',
    summary: "a port order's status and each of its numbers'",
    fields: [orderId],
    example: 'wholesale portin query-order --order-id ORD-7',
  },
  {
    group: 'portin',
    name: 'cancel-order',
    operation: 'cancelPortOrder',
    summary: 'cancel a port order, or only the number given by --gpsi',
    fields: [orderId, gpsi],
    example: 'wholesale portin cancel-order --order-id ORD-7 --gpsi 19459986802',
  },
  {
    group: 'portin',
    name: 'eligibility-many',
    operation: 'checkPortOrderEligibility',
    summary: 'may these numbers be ported in? (up to 1,000, each answered)',
    fields: [{ flags: '--number <gpsi...>', description: 'a number to check; repeat the flag or separate with commas', field: 'numbers', parse: collect }],
    example: 'wholesale portin eligibility-many --number 19459986801,19459986802',
  },
  {
    group: 'balance',
    name: 'add-buckets',
    operation: 'addBuckets',
    summary: 'add add-on buckets to an active subscription',
    fields: [gpsi, buckets],
    example: 'wholesale balance add-buckets --gpsi 19459986891 --bucket 2000002',
  },
  {
    group: 'balance',
    name: 'swap-primary',
    operation: 'swapPrimaryBucket',
    summary: 'replace the primary bucket of an active subscription',
    fields: [gpsi, { flags: '--bucket <bucketRefId>', description: 'the new primary bucket (one catalog id)', field: 'bucketRefId' }],
    example: 'wholesale balance swap-primary --gpsi 19459986891 --bucket 1000002',
  },
  {
    group: 'balance',
    name: 'cancel-buckets',
    operation: 'cancelBuckets',
    summary: 'cancel add-on buckets of an active subscription',
    fields: [gpsi, buckets],
    example: 'wholesale balance cancel-buckets --gpsi 19459986891 --bucket 2000002',
  },
  { group: 'balance', name: 'query', operation: 'queryBalances', summary: 'the balances of an active subscription', fields: [gpsi], example: 'wholesale balance query --gpsi 19459986891' },
  {
    group: 'balance',
    name: 'update',
    operation: 'updateBalances',
    summary: 'add to or subtract from sub-balances, all or nothing (balances as JSON)',
    fields: [gpsi],
    example: 'wholesale balance update --gpsi 19459986891 --file balances.json',
  },
  {
    group: 'balance',
    name: 'history',
    operation: 'queryBalanceHistory',
    summary: 'the balance ledger of a subscription, newest first',
    fields: [
      gpsi,
      { flags: '--limit <n>', description: 'entries wanted (1 to 500; default 50)', field: 'limit', parse: (raw) => parsePositiveInteger(raw) },
      { flags: '--subscription <id>', description: 'one subscription of the number: an ended one (its id from SubscriptionPortedOut) once the number ported back in', field: 'subscriptionId' },
    ],
    example: 'wholesale balance history --gpsi 19459986891 --limit 10',
  },
  {
    group: 'balance',
    name: 'reserve',
    operation: 'reserveBalance',
    summary: 'hold an amount of one sub-balance for a charging session, until committed, released or its time to live ends',
    fields: [gpsi, reservationId, subBalance, amount, { flags: '--ttl <seconds>', description: 'time to live (1 to 86400)', field: 'ttlSeconds', parse: (raw) => parsePositiveInteger(raw) }],
    example: 'wholesale balance reserve --gpsi 19459986891 --reservation session-1 --sub-balance 19459986891-4 --amount 50 --ttl 300',
  },
  {
    group: 'balance',
    name: 'commit',
    operation: 'commitReservation',
    summary: 'end a reservation with the amount used; the rest is released',
    fields: [gpsi, reservationId, { flags: '--used <n>', description: 'the amount used (0 to the amount reserved)', field: 'usedAmount', parse: parseNumber }],
    example: 'wholesale balance commit --gpsi 19459986891 --reservation session-1 --used 42.5',
  },
  {
    group: 'balance',
    name: 'release',
    operation: 'releaseReservation',
    summary: 'end a reservation without use',
    fields: [gpsi, reservationId],
    example: 'wholesale balance release --gpsi 19459986891 --reservation session-1',
  },
  {
    group: 'balance',
    name: 'top-up',
    operation: 'topupBalance',
    summary: 'credit a sub-balance once per payment or voucher reference (type and unit with --data or the flags)',
    fields: [
      gpsi,
      subBalance,
      subBalanceType,
      unitType,
      amount,
      { flags: '--reference <ref>', description: 'the payment or voucher reference', field: 'reference' },
      { flags: '--reference-type <type>', description: 'PAYMENT or VOUCHER', field: 'referenceType' },
    ],
    example: "wholesale balance top-up --gpsi 19459986891 --sub-balance 19459986891-4 --type 'On-Net Data' --unit MB --amount 1024 --reference PAY-1 --reference-type PAYMENT",
  },
  {
    group: 'balance',
    name: 'adjust',
    operation: 'adjustBalance',
    summary: 'credit or debit a sub-balance with a reason code',
    fields: [
      gpsi,
      subBalance,
      subBalanceType,
      unitType,
      amount,
      { flags: '--action <action>', description: 'Credit or Debit', field: 'action' },
      { flags: '--reason <code>', description: 'CUSTOMER_CARE, GOODWILL or CORRECTION', field: 'reasonCode' },
      { flags: '--note <text>', description: 'free text for the record', field: 'note' },
    ],
    example: "wholesale balance adjust --gpsi 19459986891 --sub-balance 19459986891-4 --type 'On-Net Data' --unit MB --action Credit --amount 100 --reason GOODWILL",
  },
  {
    group: 'balance',
    name: 'transfer',
    operation: 'transferBalance',
    summary: 'move an amount to a sub-balance of another subscription of the same partner, all or nothing',
    fields: [
      gpsi,
      subBalance,
      { flags: '--to-gpsi <gpsi>', description: 'the number to transfer to', field: 'toGpsi' },
      { flags: '--to-sub-balance <id>', description: 'the sub-balance to transfer to', field: 'toSubBalanceInstId' },
      amount,
    ],
    example: 'wholesale balance transfer --gpsi 19459986891 --sub-balance 19459986891-4 --to-gpsi 19459986892 --to-sub-balance 19459986892-4 --amount 500',
  },
];

/** The option key commander derives from a flag (`--partner-transaction-id <id>` → `partnerTransactionId`). */
export function optionKey(flags: string): string {
  const long = flags.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? flags;
  return long.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
