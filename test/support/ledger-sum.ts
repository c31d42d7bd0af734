import type { Amounts, SubBalance, SubBalanceChange } from '../../src/domain/balance/model';

/**
 * The reference the balance property tests hold the ledger to, independent of the rules that wrote it:
 * over a subscription's whole ledger (oldest change first), per sub-balance,
 *
 *   remaining = Σ granted (Created, and each renewal's allocation) + Σ Add − Σ Subtract
 *               − Σ lapsed at renewals − what expired or was removed
 *
 * where a renewal's lapsed part is what was left before it minus what it carried (rollover and purchased
 * credit kept). Units never come from nothing: a renewal grants at most the allocation (`fullAllocation`),
 * carries at most what was left and rolls over at most the cap; an Add or Subtract moves remaining by
 * exactly its quantity; every change starts where the one before ended (nothing changed off the ledger),
 * and the last one ends at the balance as it is.
 */
export interface LedgerReport {
  problems: string[];
  /** Changes checked, by kind (to see what a random history exercised). */
  kinds: Record<string, number>;
}

const same = (a: Amounts | undefined, b: Amounts | undefined) =>
  a !== undefined && b !== undefined && a.remaining === b.remaining && a.allocated === b.allocated && a.rollover === b.rollover && a.purchased === b.purchased;

export function checkLedger(changes: readonly SubBalanceChange[], balances: readonly SubBalance[], fullAllocation: (c: SubBalanceChange) => number): LedgerReport {
  const problems: string[] = [];
  const kinds: Record<string, number> = {};
  const sum = new Map<string, number>();
  const last = new Map<string, Amounts | 'gone'>();
  changes.forEach((c, i) => {
    kinds[c.change] = (kinds[c.change] ?? 0) + 1;
    const at = `change ${i} (${c.change} ${c.subBalanceInstId})`;
    const held = last.get(c.subBalanceInstId);
    if (c.change === 'Created') {
      if (held !== undefined) problems.push(`${at}: created twice`);
    } else if (held === undefined || held === 'gone' || !same(c.before, held)) {
      problems.push(`${at}: starts at ${JSON.stringify(c.before)}, the ledger left it at ${JSON.stringify(held)}`);
    }
    let delta = 0;
    switch (c.change) {
      case 'Created':
        delta = c.after!.remaining;
        if (c.after!.allocated > fullAllocation(c) || c.after!.rollover !== 0 || c.after!.purchased !== 0) problems.push(`${at}: created with more than its allocation`);
        break;
      case 'Add':
      case 'Subtract':
        delta = c.change === 'Add' ? c.quantity! : -c.quantity!;
        if (c.after!.remaining - c.before!.remaining !== delta) problems.push(`${at}: moved remaining by ${c.after!.remaining - c.before!.remaining}, not ${delta}`);
        break;
      case 'Renewed': {
        const carried = c.after!.rollover + c.after!.purchased;
        const lapsed = c.before!.remaining - carried;
        delta = c.after!.allocated - lapsed;
        if (lapsed < 0) problems.push(`${at}: carried ${carried}, more than the ${c.before!.remaining} left`);
        if (c.after!.allocated > fullAllocation(c)) problems.push(`${at}: granted ${c.after!.allocated}, more than the allocation`);
        if (c.after!.remaining !== c.after!.allocated + carried) problems.push(`${at}: remaining is not allocation + carried`);
        break;
      }
      case 'CreditExpired':
        delta = -c.quantity!;
        if (c.quantity !== c.before!.purchased || c.after!.purchased !== 0) problems.push(`${at}: took ${c.quantity} off, the credit was ${c.before!.purchased}`);
        break;
      case 'Expired':
      case 'Removed':
      case 'Closed':
        delta = -c.before!.remaining;
        break;
    }
    sum.set(c.subBalanceInstId, (sum.get(c.subBalanceInstId) ?? 0) + delta);
    last.set(c.subBalanceInstId, c.after ?? 'gone');
  });
  const live = new Set(balances.map((b) => b.subBalanceInstId));
  for (const b of balances) {
    if (sum.get(b.subBalanceInstId) !== b.remaining) problems.push(`${b.subBalanceInstId}: the ledger sums to ${sum.get(b.subBalanceInstId)}, the balance is ${b.remaining}`);
    if (!same(last.get(b.subBalanceInstId) as Amounts, b)) problems.push(`${b.subBalanceInstId}: the ledger ends at ${JSON.stringify(last.get(b.subBalanceInstId))}, the balance is elsewhere`);
    if (b.purchased < 0 || b.purchased > b.remaining) problems.push(`${b.subBalanceInstId}: purchased ${b.purchased} outside 0..remaining ${b.remaining}`);
  }
  for (const [id, held] of last) {
    if (held !== 'gone' && !live.has(id)) problems.push(`${id}: gone without a change in the ledger`);
    if (held === 'gone' && sum.get(id) !== 0) problems.push(`${id}: ended with ${sum.get(id)} unaccounted`);
  }
  return { problems, kinds };
}

/**
 * The default catalog with shorter purchased-credit validities and every first-cycle mode, so a short
 * random history meets prorated, empty and full first cycles, carried and lapsing credit, and expiries.
 */
export function propertyCatalogDocument(document: { buckets: Record<string, unknown>[] } & Record<string, unknown>) {
  const firstCycle: Record<string, Record<string, unknown>> = {
    '1000001': { firstCycle: 'full', rolloverFromFirstCycle: true },
    '1000002': { firstCycle: 'prorate' },
    '1000003': { firstCycle: 'none' },
  };
  return {
    ...document,
    buckets: document.buckets.map((b) => ({ ...b, ...(firstCycle[b.bucketRefId as string] ?? {}) })),
    purchasedCredit: {
      'On-Net Data': { carryOver: true, validity: { days: 10 } },
      'On-Net Voice': { carryOver: true },
      'On-Net SMS': { carryOver: false, validity: { days: 5 } },
      'On-Net MMS': { carryOver: false },
    },
  };
}

/** The catalog allocation (milli-units) of a change's sub-balance: what a cycle may grant it at most. */
export const allocationOf =
  (catalog: { buckets: ReadonlyMap<string, { allowances: { subBalanceType: string; amount: number }[] }> }) =>
  (c: SubBalanceChange): number =>
    Math.round(catalog.buckets.get(c.bucketRefId)!.allowances.find((a) => a.subBalanceType === c.subBalanceType)!.amount * 1000);
