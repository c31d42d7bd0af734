import { subscriberTag } from './keys';

/** Port-out keys: a number's port-outs share its `{gpsi}` tag (keys.ts); the deadline schedule has its own. */
export const portOutKeys = (prefix: string, gpsi: string) => {
  const base = `${prefix}${subscriberTag(gpsi)}`;
  return {
    /** String: the number's current (latest) port-out, JSON with its format `v`. */
    current: `${base}:portout`,
    /** Hash: portOutId -> JSON of the number's earlier, finished port-outs. */
    history: `${base}:portout:history`,
    /** String with TTL: the recorded outcome of one cause (NP record, partner's answer, deadline). */
    outcome: (causeId: string): string => `${base}:portout:outcome:${causeId}`,
  };
};

/** Sorted set: validation deadlines, member `<gpsi>|<portOutId>` -> deadline (ms). */
export const portOutDeadlineKey = (prefix: string): string => `${prefix}{portout-deadline}:schedule`;
