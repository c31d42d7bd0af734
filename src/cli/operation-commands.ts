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

const collect = (raw: string, previous: unknown): string[] => [...((previous as string[] | undefined) ?? []), ...raw.split(',').map((s) => s.trim()).filter(Boolean)];

const gpsi: FieldFlag = { flags: '--gpsi <gpsi>', description: 'the number (GPSI/MSISDN, 11 to 15 digits)', field: 'gpsi' };
const partnerTransactionId: FieldFlag = { flags: '--partner-transaction-id <id>', description: "the partner's transaction id of the create", field: 'partnerTransactionId' };
const portOrderId: FieldFlag = { flags: '--port-order-id <id>', description: 'the port order id the NP application assigned', field: 'portOrderId' };
const desiredDueDate: FieldFlag = {
  flags: '--desired-due-date <iso>',
  description: 'the due date to ask for (ISO 8601 with a zone, a business day no earlier than the earliest allowed)',
  field: 'desiredDueDate',
};
const buckets: FieldFlag = { flags: '--bucket <bucketRefId...>', description: 'catalog bucket id(s); repeat the flag or separate with commas', field: 'bucketRefId', parse: collect };

export const OPERATION_COMMANDS: readonly OperationCommand[] = [
  { group: 'portin', name: 'eligibility', operation: 'checkPortInEligibility', summary: 'may this number be ported in?', fields: [gpsi], example: 'wholesale portin eligibility --gpsi 19459986891' },
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
  { group: 'balance', name: 'add-buckets', operation: 'addBuckets', summary: 'add add-on buckets to an active subscription', fields: [gpsi, buckets], example: 'wholesale balance add-buckets --gpsi 19459986891 --bucket 2000002' },
  {
    group: 'balance',
    name: 'swap-primary',
    operation: 'swapPrimaryBucket',
    summary: 'replace the primary bucket of an active subscription',
    fields: [gpsi, { flags: '--bucket <bucketRefId>', description: 'the new primary bucket (one catalog id)', field: 'bucketRefId' }],
    example: 'wholesale balance swap-primary --gpsi 19459986891 --bucket 1000002',
  },
  { group: 'balance', name: 'cancel-buckets', operation: 'cancelBuckets', summary: 'cancel add-on buckets of an active subscription', fields: [gpsi, buckets], example: 'wholesale balance cancel-buckets --gpsi 19459986891 --bucket 2000002' },
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
    fields: [gpsi, { flags: '--limit <n>', description: 'entries wanted (1 to 500; default 50)', field: 'limit', parse: (raw) => parsePositiveInteger(raw) }],
    example: 'wholesale balance history --gpsi 19459986891 --limit 10',
  },
];

/** The option key commander derives from a flag (`--partner-transaction-id <id>` → `partnerTransactionId`). */
export function optionKey(flags: string): string {
  const long = flags.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? flags;
  return long.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
