import type { BalanceComponents } from '../../../src/app/balance';
import type { RedisClient } from '../../../src/adapters/redis/client';
import { subscriberKeys } from '../../../src/adapters/redis/keys';
import type { Catalog } from '../../../src/domain/catalog/catalog';
import type { SubBalanceChange } from '../../../src/domain/balance/model';
import { allocationOf, checkLedger } from '../../support/ledger-sum';

/**
 * The balance invariant a fault test must leave behind, read from Redis for every sub-balance of the numbers
 * it touched: for each,
 *
 *   granted (created, renewed grants, every Add) = used (every Subtract and commit, what lapsed, expired or
 *   was removed) + reserved + available,   available = remaining − reserved ≥ 0
 *
 * with `reserved` (the `<n>r` field the scripts keep beside the row) equal to the sum of the subscription's
 * held reservation records for it; and the ledger sums to the balance, each change starting where the one
 * before ended (test/support/ledger-sum.ts). Returns every violation, each naming its number or sub-balance;
 * [] when all hold. The ledger must be whole: a trimmed one (past BALANCE_LEDGER_RETENTION) is a violation.
 */
export async function balanceInvariantViolations(
  deps: { redis: RedisClient; balance: BalanceComponents; catalog: Catalog; keyPrefix: string; ledgerRetention: number },
  numbers: readonly { gpsi: string; wholesaleCustomerId: string }[],
): Promise<string[]> {
  const violations: string[] = [];
  for (const { gpsi, wholesaleCustomerId } of numbers) {
    const { balances } = await deps.balance.balances.queryBalances(gpsi, [wholesaleCustomerId]);
    const changes: SubBalanceChange[] = (await deps.balance.balances.history(gpsi, [wholesaleCustomerId], deps.ledgerRetention * balances.length + 1)).reverse(); // oldest first
    violations.push(...checkLedger(changes, balances, allocationOf(deps.catalog)).problems.map((p) => `${gpsi}: ${p}`));
    const heldBySeq = new Map<string, number>();
    for (const [id, record] of Object.entries(await deps.redis.hgetall(subscriberKeys(deps.keyPrefix, gpsi).reservations))) {
      const [format, seq, amount] = record.split('|');
      if (format !== '1') violations.push(`${gpsi}: reservation ${id} of format ${format}`);
      heldBySeq.set(seq, (heldBySeq.get(seq) ?? 0) + Number(amount));
    }
    for (const b of balances) {
      const own = changes.filter((c) => c.subBalanceInstId === b.subBalanceInstId);
      if (own[0]?.change !== 'Created') violations.push(`${b.subBalanceInstId}: the ledger does not start at its creation (trimmed?)`);
      let granted = 0;
      let used = 0;
      for (const c of own) {
        if (c.change === 'Created') granted += c.after!.remaining;
        else if (c.change === 'Add') granted += c.quantity!;
        else if (c.change === 'Subtract' || c.change === 'CreditExpired') used += c.quantity!;
        else if (c.change === 'Renewed') {
          granted += c.after!.allocated;
          used += c.before!.remaining - c.after!.rollover - c.after!.purchased; // what lapsed
        }
      }
      const reserved = b.reserved ?? 0;
      const available = b.remaining - reserved;
      const seq = b.subBalanceInstId.slice(gpsi.length + 1);
      if (granted !== used + reserved + available) {
        violations.push(`${b.subBalanceInstId}: granted ${granted} ≠ used ${used} + reserved ${reserved} + available ${available} (remaining ${b.remaining})`);
      }
      if (available < 0) violations.push(`${b.subBalanceInstId}: reserved ${reserved} above remaining ${b.remaining}`);
      if (reserved !== (heldBySeq.get(seq) ?? 0)) violations.push(`${b.subBalanceInstId}: reserved ${reserved}, its held reservations sum to ${heldBySeq.get(seq) ?? 0}`);
      heldBySeq.delete(seq);
    }
    for (const [seq, amount] of heldBySeq) violations.push(`${gpsi}-${seq}: reservations hold ${amount} of a sub-balance that is gone`);
  }
  return violations;
}
