import type { Cluster, Redis } from 'ioredis';
import type { PendingTransfer, TransferStore, TransferSweepStore } from '../../handlers/balance-operations/ports';
import { decodeOutcome } from './balance-outcome';
import { commandContext } from './command-context';
import { subscriberKeys, transferDueKey } from './keys';
import { decodeLedgerChange } from './ledger-entry';
import { runScript } from './scripts';
import { serverTimeMs } from './server-time';

type ScriptReply = [outcome: string, replayed: number, facts?: (string | null)[]];

/** The format of a transfer-due entry and of the transfer records (TRANSFER_FORMAT in scripts/lib/balance/7-transfers.lua). */
const TRANSFER_FORMAT = 1;

/** A transfer-due entry: JSON with fixed key order, so the same command notes the same member again. */
function encodeDueEntry({ meta, order }: PendingTransfer): string {
  return JSON.stringify({
    format: TRANSFER_FORMAT,
    gpsi: meta.gpsi,
    transferId: meta.commandId,
    customer: meta.wholesaleCustomerId,
    visible: meta.visibleCustomerIds ?? null,
    correlationId: meta.correlationId,
    operation: meta.operation,
    fingerprint: meta.fingerprint ?? null,
    subBalanceInstId: order.subBalanceInstId,
    toGpsi: order.toGpsi,
    toSubBalanceInstId: order.toSubBalanceInstId,
    amount: order.amount,
  });
}

function decodeDueEntry(entry: string): PendingTransfer {
  const e = JSON.parse(entry) as Record<string, unknown>;
  if (e.format !== TRANSFER_FORMAT) throw new Error(`stored transfer-due entry of format ${JSON.stringify(e.format)}: not one this worker reads (${TRANSFER_FORMAT})`);
  const text = (key: string) => String(e[key]);
  return {
    meta: {
      gpsi: text('gpsi'),
      commandId: text('transferId'),
      wholesaleCustomerId: text('customer'),
      ...(Array.isArray(e.visible) ? { visibleCustomerIds: e.visible.map(String) } : {}),
      correlationId: text('correlationId'),
      operation: text('operation'),
      ...(typeof e.fingerprint === 'string' ? { fingerprint: e.fingerprint } : {}),
    },
    order: { subBalanceInstId: text('subBalanceInstId'), toGpsi: text('toGpsi'), toSubBalanceInstId: text('toSubBalanceInstId'), amount: Number(e.amount) },
  };
}

export interface TransferStoreSettings {
  keyPrefix: string;
  outcomeTtlSeconds: number;
  ledgerRetention: number;
  /** How long after its debit a transfer not settled is the sweeper's to finish (ms). */
  sweepAfterMs: number;
}

/** A transfer's three steps over Redis: two scripts on the source's slot, one on the target's. */
export function createRedisTransferStore(redis: Redis | Cluster, settings: TransferStoreSettings): TransferStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const dueKey = transferDueKey(settings.keyPrefix);
  return {
    // The due-set is a global key: a call of its own, before the debit, so no pending transfer goes unnoted.
    // A debit that then never runs or is refused leaves an entry the sweeper drops. Due on Redis's clock, which
    // the sweeper claims by: a sweeper on a worker whose clock is ahead must not take a transfer still in hand.
    note: async (meta, order) => void (await redis.zadd(dueKey, (await serverTimeMs(redis)) + settings.sweepAfterMs, encodeDueEntry({ meta, order }))),
    unnote: async (meta, order) => void (await redis.zrem(dueKey, encodeDueEntry({ meta, order }))),
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
      const [state, row] = await runScript<[string, string]>(
        redis,
        'transferSettle',
        [keys.subscription, keys.balances, keys.ledger, keys.transfers],
        [JSON.stringify(commandContext(meta, settings)), credited ? '1' : '0'],
      );
      if (state === 'completed') return { state };
      if (state !== 'reversed') throw new Error(`transfer ${meta.commandId} of ${meta.gpsi}: ${state}`);
      return row ? { state, reversal: decodeLedgerChange(row, meta.gpsi) } : { state };
    },
  };
}

/** The pending-transfer sweeper's storage: the transfer due-set (claimed as the renewals' is) and the source's transfer records. */
export function createRedisTransferSweepStore(redis: Redis | Cluster, settings: { keyPrefix: string }): TransferSweepStore {
  const dueKey = transferDueKey(settings.keyPrefix);
  return {
    now: () => serverTimeMs(redis),
    async claimDue(nowMs, leaseUntilMs, limit) {
      const entries = await runScript<string[]>(redis, 'renewalsClaim', [dueKey], [nowMs, leaseUntilMs, limit]);
      return entries.map((entry) => ({ entry, transfer: decodeDueEntry(entry) }));
    },
    async state(gpsi, transferId) {
      const record = await redis.hget(subscriberKeys(settings.keyPrefix, gpsi).transfers, transferId);
      if (record === null) return undefined;
      const [format, state] = record.split('|');
      if (Number(format) !== TRANSFER_FORMAT) throw new Error(`stored transfer of format ${format}: newer than this worker reads (up to ${TRANSFER_FORMAT})`);
      if (state !== 'pending' && state !== 'completed' && state !== 'reversed') throw new Error(`transfer ${transferId} of ${gpsi}: state ${state}`);
      return state;
    },
    // The reservation due-set's reschedule with no next time: removed only while it still has the claim's score.
    forget: async (entry, claimedUntilMs) => void (await runScript(redis, 'reservationsReschedule', [dueKey], [entry, claimedUntilMs, ''])),
  };
}
