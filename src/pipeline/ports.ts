import type { Outbound } from '../contract/transport';

/**
 * What the pipeline needs from storage besides the handlers' own ports: its memory of answered changes
 * (implemented over Redis in src/adapters/redis/reply-cache.ts). The codec is contract/codec.ts, the access
 * checks are security/access.ts.
 */

/** What a change answered: its fingerprint and every message it sent, re-sent as they were on a redelivery. */
export interface StoredOutcome {
  fingerprint: string;
  messages: Outbound[];
  /**
   * Some messages the command sent are not kept (they carried secrets): a redelivery runs the handler again,
   * which replays them from its own records while they are still owed, instead of this incomplete copy.
   */
  rerun?: boolean;
}

export interface ReplyCache {
  /** The outcome recorded for this command, if any. */
  lookup(partnerId: string, commandId: string): Promise<StoredOutcome | undefined>;
  /** Keeps the first outcome stored (SET NX): a command is looked up before it runs, so a later one is a race's loser. */
  put(partnerId: string, commandId: string, outcome: StoredOutcome): Promise<void>;
}
