import type { Logger } from 'pino';
import type { OutgoingMessage } from '../contract/messages';
import type { TransferStore, TransferSweepStore } from '../handlers/balance-operations/ports';
import { runTransfer } from '../handlers/balance-operations/transfer-steps';
import { pollLoop, type PollLoop } from './poll-loop';

/**
 * Finishes transfers a worker left pending — debited, never settled — because it died between the steps and
 * the command never came back (the partner gave up on it). Every debit first notes its transfer in a due-set,
 * due `sweepAfterMs` later; each tick claims the due entries with a lease, as the renewal and reservation
 * schedulers do (another instance leaves them alone meanwhile), and for a transfer the source still holds
 * pending runs the handler's three idempotent steps again: the debit replays its record, the credit and the
 * settlement do their part once, so the transfer ends completed (BalanceTransferred published before the
 * settlement, with the id the handler gives it) or reversed (the target refused; TransferReversed published
 * after the settlement, which makes the reversal). A reversed transfer still in the due-set is published again
 * (the steps answer what they did): the handler takes out the note of a reversal whose event goes with its
 * reply, so one still there may not have gone out. A completed transfer, or one whose debit never ran, is only
 * dropped from the due-set. A crash or a failed publish leaves the entry due again when its lease ends.
 * Time is the store's (Redis's TIME), the clock each note is due by: a sweeper on a worker whose clock is ahead
 * would otherwise take transfers still in their handler's hands.
 */
export interface TransferSweeperSettings {
  pollIntervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export interface TransferSweeperDeps {
  store: TransferSweepStore;
  transfers: TransferStore;
  publish(messages: OutgoingMessage[]): Promise<void>;
  log: Logger;
  settings: TransferSweeperSettings;
}

export interface TransferSweeper extends PollLoop {
  /** One pass over the due transfers; returns how many pending ones it finished. */
  tick(): Promise<number>;
}

export function createTransferSweeper(deps: TransferSweeperDeps): TransferSweeper {
  const { store, settings, log } = deps;

  async function sweep(entry: Awaited<ReturnType<TransferSweepStore['claimDue']>>[number], now: number, claimedUntil: number): Promise<boolean> {
    const { meta, order } = entry.transfer;
    const state = await store.state(meta.gpsi, meta.commandId);
    const pending = state === 'pending';
    // a reversal still noted: its TransferReversed may not have gone out (a handler publishing it unnotes it)
    if (pending || state === 'reversed') {
      const result = await runTransfer(deps.transfers, { ...meta, at: new Date(now).toISOString() }, order, { beforeSettle: (event) => deps.publish([event]) });
      // a reversal's event exists only once the settlement gave the amount back: published after it
      if (result.state === 'reversed') await deps.publish([result.event]);
      log.info({ gpsi: meta.gpsi, transferId: meta.commandId, state: result.state }, pending ? 'pending transfer finished by the sweeper' : 'reversed transfer published by the sweeper');
    }
    await store.forget(entry.entry, claimedUntil);
    return pending;
  }

  async function tick(): Promise<number> {
    const now = await store.now();
    const claimedUntil = now + settings.leaseMs;
    const claimed = await store.claimDue(now, claimedUntil, settings.batchSize);
    const results = await Promise.all(
      claimed.map((entry) =>
        sweep(entry, now, claimedUntil).catch((error: unknown) => {
          log.error({ err: error, gpsi: entry.transfer.meta.gpsi, transferId: entry.transfer.meta.commandId }, 'transfer sweep failed; retried after the lease');
          return false;
        }),
      ),
    );
    return results.filter(Boolean).length;
  }

  return { ...pollLoop(tick, settings.pollIntervalMs, log, 'transfer sweeper tick failed'), tick };
}
