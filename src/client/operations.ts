import { COMMAND_TOPICS, type CommandTopicRole } from '../contract/topics';
import type { ContractInputs, ContractRecords, RecordName } from '../contract/types.generated';

/**
 * The operations a requester can call: which command topic each goes to and which records it sends and
 * gets back. The record names are checked against the generated contract types, so a renamed record or
 * field breaks the build of every caller rather than a call in production.
 */
interface OperationSpec {
  commandTopic: CommandTopicRole;
  command: RecordName;
  reply: RecordName;
}

const portin = <C extends string>(name: C) => ({ commandTopic: 'portinCommands', command: `wholesale.portin.v1.${name}`, reply: `wholesale.portin.v1.${name}Reply` }) as const;
const balance = <C extends string>(name: C) => ({ commandTopic: 'balanceCommands', command: `wholesale.balance.v1.${name}`, reply: `wholesale.balance.v1.${name}Reply` }) as const;

export const OPERATIONS = {
  checkPortInEligibility: portin('CheckPortInEligibility'),
  createPortIn: portin('CreatePortIn'),
  updatePortIn: portin('UpdatePortIn'),
  cancelPortIn: portin('CancelPortIn'),
  queryPortIn: portin('QueryPortIn'),
  activatePortIn: portin('ActivatePortIn'),
  answerPortOut: portin('AnswerPortOut'),
  queryPortOut: portin('QueryPortOut'),
  createPortOrder: portin('CreatePortOrder'),
  queryPortOrder: portin('QueryPortOrder'),
  cancelPortOrder: portin('CancelPortOrder'),
  checkPortOrderEligibility: portin('CheckPortOrderEligibility'),
  addBuckets: balance('AddBuckets'),
  swapPrimaryBucket: balance('SwapPrimaryBucket'),
  cancelBuckets: balance('CancelBuckets'),
  queryBalances: balance('QueryBalances'),
  updateBalances: balance('UpdateBalances'),
  queryBalanceHistory: balance('QueryBalanceHistory'),
  reserveBalance: balance('ReserveBalance'),
  commitReservation: balance('CommitReservation'),
  releaseReservation: balance('ReleaseReservation'),
  topupBalance: balance('TopupBalance'),
  adjustBalance: balance('AdjustBalance'),
  transferBalance: balance('TransferBalance'),
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
export type OperationInput<O extends OperationName> = ContractInputs[(typeof OPERATIONS)[O]['command']];
export type OperationReply<O extends OperationName> = ContractRecords[(typeof OPERATIONS)[O]['reply']];

/** The record's short name (`CheckPortInEligibility`), as the service logs it and the ErrorReply names it. */
export const operationRecordName = (operation: OperationName): string => OPERATIONS[operation].command.split('.').pop() as string;

export const replyTopicRole = (operation: OperationName) => COMMAND_TOPICS[OPERATIONS[operation].commandTopic].replies;

/**
 * The service's key rule: a port order's orderId (its commands stay ordered), else gpsi, else
 * partnerTransactionId, else portOrderId, so one number's commands stay ordered.
 */
export function commandKey(input: object): string | null {
  const fields = input as { orderId?: unknown; gpsi?: unknown; partnerTransactionId?: unknown; portOrderId?: unknown };
  for (const value of [fields.orderId, fields.gpsi, fields.partnerTransactionId, fields.portOrderId]) {
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}
