import type { OperationName } from '../client/operations';
import { transitionsText } from './transition-text';

/**
 * The one table the gateway's HTTP API is made from: each operation of the client library (one command and
 * its reply) at a method and path. Commands take the spec's fields as a JSON body, queries as query
 * parameters; the schemas come from schemas/ (contract-schemas.ts), the handler is the same for every row.
 */
export interface GatewayRoute {
  operation: OperationName;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  /** Where the command's fields are read from. */
  input: 'body' | 'query';
  tag: 'Port-in' | 'Balances';
  summary: string;
  /** More than the summary says: for the port-in changes, the statuses each accepts, from the lifecycle table. */
  description?: string;
}

export const ROUTES: readonly GatewayRoute[] = [
  { operation: 'checkPortInEligibility', method: 'POST', path: '/portins/eligibility', input: 'body', tag: 'Port-in', summary: 'Check whether a number may be ported in (spec 2.3)' },
  { operation: 'createPortIn', method: 'POST', path: '/portins', input: 'body', tag: 'Port-in', summary: 'Create a port-in and its subscription (spec 2.4, 2.5)' },
  {
    operation: 'updatePortIn',
    method: 'PATCH',
    path: '/portins',
    input: 'body',
    tag: 'Port-in',
    summary: 'Update a rejected port-in or one that needs resolution; or change only the due date of one in progress (spec 2.6)',
    description: `With updatePortInfo: ${transitionsText('UpdatePortIn')}. With only desiredDueDate (an empty updatePortInfo): ${transitionsText('UpdateDueDate')}. In any other status 409 CONFLICT.`,
  },
  {
    operation: 'cancelPortIn',
    method: 'POST',
    path: '/portins/cancellations',
    input: 'body',
    tag: 'Port-in',
    summary: 'Cancel a port-in in progress: at once when rejected or needing resolution, else once the NP side confirms (spec 2.7)',
    description: `${transitionsText('CancelPortIn')}. In any other status 409 CONFLICT.`,
  },
  { operation: 'queryPortIn', method: 'GET', path: '/portins', input: 'query', tag: 'Port-in', summary: 'Query a port-in by gpsi, partnerTransactionId or portOrderId (spec 2.8)' },
  {
    operation: 'activatePortIn',
    method: 'POST',
    path: '/portins/activations',
    input: 'body',
    tag: 'Port-in',
    summary: 'Activate a confirmed port now, inside its activation window (the FOC date)',
  },
  { operation: 'answerPortOut', method: 'POST', path: '/portouts/answers', input: 'body', tag: 'Port-in', summary: 'Approve or reject a port-out of your number before its validation deadline' },
  { operation: 'queryPortOut', method: 'GET', path: '/portouts', input: 'query', tag: 'Port-in', summary: "The number's latest port-out" },
  {
    operation: 'createPortOrder',
    method: 'POST',
    path: '/portorders',
    input: 'body',
    tag: 'Port-in',
    summary: 'Port in up to 1,000 numbers as one order: each number its own port-in, or refused with why',
    description:
      'The CreatePortIn fields are shared by every number; each number may set its own partnerTransactionId (default <orderId>-<gpsi>), subscriberId and iccid. Retried under the same orderId it is the same order; another payload under it is 409 CONFLICT.',
  },
  { operation: 'queryPortOrder', method: 'GET', path: '/portorders', input: 'query', tag: 'Port-in', summary: "A port order's status, derived from its numbers, and each number's" },
  {
    operation: 'cancelPortOrder',
    method: 'POST',
    path: '/portorders/cancellations',
    input: 'body',
    tag: 'Port-in',
    summary: 'Cancel every number of a port order still in progress, or the one given by gpsi',
  },
  { operation: 'checkPortOrderEligibility', method: 'POST', path: '/portorders/eligibility', input: 'body', tag: 'Port-in', summary: 'Check up to 1,000 numbers at once, each answered' },
  { operation: 'addBuckets', method: 'POST', path: '/balances/buckets', input: 'body', tag: 'Balances', summary: 'Add buckets to an active subscription (spec 2.9)' },
  { operation: 'swapPrimaryBucket', method: 'PUT', path: '/balances/primary-bucket', input: 'body', tag: 'Balances', summary: 'Swap the primary bucket of an active subscription (spec 2.9)' },
  { operation: 'cancelBuckets', method: 'POST', path: '/balances/buckets/cancellations', input: 'body', tag: 'Balances', summary: 'Cancel buckets of an active subscription (spec 2.9)' },
  { operation: 'queryBalances', method: 'GET', path: '/balances', input: 'query', tag: 'Balances', summary: 'Query the balances of an active subscription (spec 2.10)' },
  { operation: 'updateBalances', method: 'PATCH', path: '/balances', input: 'body', tag: 'Balances', summary: 'Add to or subtract from sub-balances, all or nothing (spec 2.10)' },
  {
    operation: 'queryBalanceHistory',
    method: 'GET',
    path: '/balances/history',
    input: 'query',
    tag: 'Balances',
    summary: 'The balance ledger of an active subscription, newest first (beyond the spec)',
  },
  {
    operation: 'reserveBalance',
    method: 'POST',
    path: '/balances/reservations',
    input: 'body',
    tag: 'Balances',
    summary: 'Hold an amount of one sub-balance for a charging session, with a time to live (beyond the spec)',
  },
  {
    operation: 'commitReservation',
    method: 'POST',
    path: '/balances/reservations/commits',
    input: 'body',
    tag: 'Balances',
    summary: 'End a reservation with the amount used; the rest is released (beyond the spec)',
  },
  { operation: 'releaseReservation', method: 'POST', path: '/balances/reservations/releases', input: 'body', tag: 'Balances', summary: 'End a reservation without use (beyond the spec)' },
  {
    operation: 'topupBalance',
    method: 'POST',
    path: '/balances/top-ups',
    input: 'body',
    tag: 'Balances',
    summary: 'Credit a sub-balance once per payment or voucher reference (beyond the spec)',
  },
  { operation: 'adjustBalance', method: 'POST', path: '/balances/adjustments', input: 'body', tag: 'Balances', summary: 'Credit or debit a sub-balance with a reason code (beyond the spec)' },
  {
    operation: 'transferBalance',
    method: 'POST',
    path: '/balances/transfers',
    input: 'body',
    tag: 'Balances',
    summary: 'Move an amount to another subscription of the same partner, all or nothing, exactly once (beyond the spec)',
  },
];
