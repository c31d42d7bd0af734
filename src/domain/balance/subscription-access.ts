import { ServiceError } from '../../contract/errors';

/** What the balance operations check of a subscription before anything else: its status and its owner. */
export interface SubscriptionAccess {
  /** PENDING | ACTIVE | CANCELLED; absent: no such subscription. */
  status?: string | null;
  wholesaleCustomerId?: string | null;
}

/**
 * Every balance operation needs an ACTIVE subscription the caller can see: its owner is one of `visible`
 * (the acting node and the nodes below it in the customer hierarchy). Missing and invisible answer alike,
 * so a partner learns nothing of another's numbers. Mirrors `precondition` in scripts/lib/balance/,
 * which the change steps check inside their atomic step; the reads (QueryBalances) check it here.
 */
export function refusalOf(subscription: SubscriptionAccess, gpsi: string, visible: readonly string[]): ServiceError | undefined {
  const { status, wholesaleCustomerId } = subscription;
  if (!status || !wholesaleCustomerId || !visible.includes(wholesaleCustomerId)) {
    return new ServiceError('NOT_FOUND', `No subscription for gpsi ${gpsi} belongs to this wholesale customer`);
  }
  if (status === 'PORTED_OUT') {
    return new ServiceError('NOT_FOUND', `The number ${gpsi} ported out to another operator; its subscription has ended`, [{ path: 'gpsi', reason: 'ported out' }]);
  }
  if (status !== 'ACTIVE') {
    return new ServiceError('CONFLICT', `The subscription for gpsi ${gpsi} is ${status}, not ACTIVE`, [{ path: 'gpsi', reason: `subscription is ${status}` }]);
  }
  return undefined;
}
