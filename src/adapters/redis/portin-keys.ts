import { subscriberKeys, subscriberTag } from './keys';

/**
 * Port-in keys. A number's requests share its `{gpsi}` tag (see keys.ts); the partner-transaction index,
 * the port-order index and the expiry schedule each have their own tag, written by single-slot scripts.
 * Ids from outside are URI-encoded in tags so `{` and `}` in them cannot move a key to another slot.
 */
const tagPart = (value: string): string => encodeURIComponent(value);

export const portInKeys = (prefix: string, gpsi: string) => {
  const base = `${prefix}${subscriberTag(gpsi)}`;
  return {
    /** Hash: the number's current (latest) port-in request. */
    current: subscriberKeys(prefix, gpsi).portIn,
    /** Hash: requestId -> JSON of the number's earlier, finished requests. */
    history: `${base}:portin:history`,
    /** String with TTL: the recorded outcome of one cause (command, NP response, expiry). */
    outcome: (causeId: string): string => `${base}:portin:outcome:${causeId}`,
  };
};

/** Hash: the partner transaction of one wholesale customer (claim, request reference, first reply). */
export const transactionKey = (prefix: string, owner: string, partnerTransactionId: string): string => `${prefix}{ptx:${tagPart(owner)}:${tagPart(partnerTransactionId)}}:portin-transaction`;

/** String: the request an NP portOrderId names. */
export const portOrderKey = (prefix: string, portOrderId: string): string => `${prefix}{po:${tagPart(portOrderId)}}:portin-order`;

/** Sorted set: expiry schedule, member -> deadline (ms). */
export const expiryScheduleKey = (prefix: string): string => `${prefix}{portin-expiry}:schedule`;
