import type { PortInRequest } from '../../domain/portin/request';
import type { CommandContext } from '../../contract/handlers';
import type { PortInStore } from './ports';

/**
 * Finds the one request that every given key names, among the requests the caller can see (owned by the
 * acting node or a node below it): another customer's request, or keys naming different requests, find
 * nothing (NOT_FOUND, never FORBIDDEN: a customer does not learn that another customer's request exists).
 */
export interface RequestKeys {
  gpsi?: string;
  partnerTransactionId?: string;
  portOrderId?: string;
}

type Visibility = Pick<CommandContext, 'canSee' | 'visibleCustomerIds'>;

const matchesAll = (request: PortInRequest, keys: RequestKeys): boolean => (Object.keys(keys) as (keyof RequestKeys)[]).every((k) => keys[k] === undefined || keys[k] === request[k]);

/**
 * Looks the request up by the most specific key given (partnerTransactionId, then portOrderId, then the
 * number's current request), then checks every other key against it. partnerTransactionIds are the
 * owners' own, so one is looked up under every visible owner, the acting node's first.
 */
export async function findOwnedRequest(store: PortInStore, scope: Visibility, keys: RequestKeys): Promise<PortInRequest | undefined> {
  let candidates: (PortInRequest | undefined)[] = [];
  if (keys.partnerTransactionId !== undefined) {
    const ptid = keys.partnerTransactionId;
    const refs = await Promise.all(scope.visibleCustomerIds.map((owner) => store.findTransaction(owner, ptid)));
    candidates = await Promise.all(refs.map((ref) => (ref ? store.byRequest(ref) : Promise.resolve(undefined))));
  } else if (keys.portOrderId !== undefined) {
    const ref = await store.findPortOrder(keys.portOrderId);
    candidates = [ref && (await store.byRequest(ref))];
  } else if (keys.gpsi !== undefined) {
    candidates = [await store.current(keys.gpsi)];
  }
  return candidates.find((request): request is PortInRequest => request !== undefined && scope.canSee(request.wholesaleCustomerId) && matchesAll(request, keys));
}

export const describeKeys = (keys: RequestKeys): string =>
  Object.entries(keys)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`)
    .join(' and ');
