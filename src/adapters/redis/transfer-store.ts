import type { Cluster, Redis } from 'ioredis';
import type { TransferStore } from '../../handlers/balance-operations/ports';
import { decodeOutcome } from './balance-outcome';
import { commandContext } from './command-context';
import { subscriberKeys } from './keys';
import { decodeLedgerChange } from './ledger-entry';
import { runScript } from './scripts';

type ScriptReply = [outcome: string, replayed: number, facts?: (string | null)[]];

/** A transfer's three steps over Redis: two scripts on the source's slot, one on the target's. */
export function createRedisTransferStore(redis: Redis | Cluster, settings: { keyPrefix: string; outcomeTtlSeconds: number; ledgerRetention: number }): TransferStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  return {
    async debit(meta, debit) {
      const keys = keysOf(meta.gpsi);
      const [json, replayed, facts] = await runScript<ScriptReply>(
        redis,
        'transferDebit',
        [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(meta.commandId), keys.transfers],
        [JSON.stringify(commandContext(meta, settings)), JSON.stringify({ subBalanceInstId: debit.subBalanceInstId, amount: String(debit.amount) })],
      );
      return decodeOutcome(json, replayed === 1, meta, facts);
    },
    async credit(meta, toGpsi, credit) {
      const keys = keysOf(toGpsi);
      const [state, detail] = await runScript<[string, string]>(
        redis,
        'transferCredit',
        [keys.subscription, keys.balances, keys.ledger, keys.transferCredits],
        [JSON.stringify(commandContext({ ...meta, gpsi: toGpsi }, settings)), JSON.stringify({ ...credit, amount: String(credit.amount) })],
      );
      return state === 'credited' ? { credited: true, change: decodeLedgerChange(detail, toGpsi) } : { credited: false, reason: detail };
    },
    async settle(meta, credited) {
      const keys = keysOf(meta.gpsi);
      const [state] = await runScript<[string, string]>(
        redis,
        'transferSettle',
        [keys.subscription, keys.balances, keys.ledger, keys.transfers],
        [JSON.stringify(commandContext(meta, settings)), credited ? '1' : '0'],
      );
      if (state !== 'completed' && state !== 'reversed') throw new Error(`transfer ${meta.commandId} of ${meta.gpsi}: ${state}`);
      return state;
    },
  };
}
