import type { PortInRequest } from '../../domain/portin/request';
import type { PortInStore } from './store';

/**
 * Finds the one request that every given key names, among the owner's requests only: another customer's
 * request, or keys naming different requests, find nothing (NOT_FOUND, never FORBIDDEN: a customer does not
 * learn that another customer's request exists).
 */
export interface RequestKeys {
  gpsi?: string;
  partnerTransactionId?: string;
  portOrderId?: string;
}

/**
 * Looks the request up by the most specific key given (partnerTransactionId, then portOrderId, then the
 * number's current request), then checks every other key against it.
 */
export async function findOwnedRequest(store: PortInStore, owner: string, keys: RequestKeys): Promise<PortInRequest | undefined> {
  let request: PortInRequest | undefined;
  if (keys.partnerTransactionId !== undefined) {
    const ref = await store.findTransaction(owner, keys.partnerTransactionId);
    request = ref && (await store.byRequest(ref));
  } else if (keys.portOrderId !== undefined) {
    const ref = await store.findPortOrder(keys.portOrderId);
    request = ref && (await store.byRequest(ref));
  } else if (keys.gpsi !== undefined) {
    request = await store.current(keys.gpsi);
  }
  if (!request || request.wholesaleCustomerId !== owner) return undefined;
  const matches = (Object.keys(keys) as (keyof RequestKeys)[]).every((k) => keys[k] === undefined || keys[k] === request[k]);
  return matches ? request : undefined;
}

export const describeKeys = (keys: RequestKeys): string =>
  Object.entries(keys)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`)
    .join(' and ');
