import type { OperationName } from '../src/client/operations';

/**
 * The fixed mixed workload of the benchmark. Per 100 commands: 50 QueryBalances, 40 UpdateBalances,
 * 5 AddBuckets/CancelBuckets (a data pass added, later cancelled again) and 5 CheckPortInEligibility,
 * in a shuffled but repeatable order, each on a subscription drawn at random. No I/O: the drivers send
 * what `next()` returns.
 */
export interface BenchSubscription {
  gpsi: string;
  customer: string;
}

export interface PlannedCall {
  operation: OperationName;
  input: Record<string, unknown>;
  customer: string;
}

/** What the drivers take: the next call to send. */
export interface Workload {
  next(): PlannedCall;
}

type Slot = 'query' | 'update' | 'bucket' | 'eligibility';

export const MIX: Readonly<Record<Slot, number>> = { query: 50, update: 40, bucket: 5, eligibility: 5 };

/** The add-on the workload adds and cancels: a one-cycle data pass (docs/balance.md). */
export const PASS_BUCKET = '2000001';

/** The primary bucket's data allowance is the fourth sub-balance created on activation (WP-BASIC). */
export interface UpdateTarget {
  /** subBalanceInstId = `<gpsi>-<suffix>`. */
  suffix: string;
  subBalanceType: string;
  unitType: string;
}

/** A small, seedable PRNG (mulberry32), so two runs send the same sequence. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffledSlots(random: () => number): Slot[] {
  const slots = (Object.entries(MIX) as [Slot, number][]).flatMap(([slot, count]) => Array<Slot>(count).fill(slot));
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [slots[i], slots[j]] = [slots[j], slots[i]];
  }
  return slots;
}

/** Numbers nobody holds: eligibility checks of numbers that could be ported in. */
export const freeNumber = (random: () => number): string => `1777${String(Math.floor(random() * 1e9)).padStart(9, '0')}`;

export class MixedWorkload implements Workload {
  private readonly random: () => number;
  private readonly slots: Slot[];
  private position = 0;
  /** Subscriptions holding a pass the workload added and has not cancelled yet, oldest first. */
  private readonly withPass: BenchSubscription[] = [];
  private readonly holding = new Set<string>();
  readonly counts: Record<string, number> = {};

  constructor(
    private readonly subscriptions: readonly BenchSubscription[],
    private readonly target: UpdateTarget,
    seed = 1,
  ) {
    if (subscriptions.length === 0) throw new Error('the workload needs subscriptions');
    this.random = randomSource(seed);
    this.slots = shuffledSlots(this.random);
  }

  next(): PlannedCall {
    const slot = this.slots[this.position++ % this.slots.length];
    const call = this.plan(slot);
    this.counts[call.operation] = (this.counts[call.operation] ?? 0) + 1;
    return call;
  }

  private pick(): BenchSubscription {
    return this.subscriptions[Math.floor(this.random() * this.subscriptions.length)];
  }

  private plan(slot: Slot): PlannedCall {
    const subscription = this.pick();
    const { gpsi, customer } = subscription;
    switch (slot) {
      case 'query':
        return { operation: 'queryBalances', input: { gpsi }, customer };
      case 'update': {
        // Add and Subtract 1 MB at random: the data balance (5 GB) wanders but never reaches zero.
        const action = this.random() < 0.5 ? 'Add' : 'Subtract';
        const { suffix, subBalanceType, unitType } = this.target;
        const balances = [{ subBalanceInstId: `${gpsi}-${suffix}`, balanceType: 'Main', subBalanceType, action, quantity: 1, unitType }];
        return { operation: 'updateBalances', input: { gpsi, balances }, customer };
      }
      case 'bucket':
        return this.bucketChange(subscription);
      case 'eligibility':
        return { operation: 'checkPortInEligibility', input: { gpsi: freeNumber(this.random) }, customer };
    }
  }

  /** Alternates: cancel the oldest pass still held when there is one every other time, else add one. */
  private bucketChange(candidate: BenchSubscription): PlannedCall {
    const cancelNow = this.withPass.length > 0 && (this.counts.addBuckets ?? 0) > (this.counts.cancelBuckets ?? 0);
    if (cancelNow) {
      const holder = this.withPass.shift()!;
      this.holding.delete(holder.gpsi);
      return { operation: 'cancelBuckets', input: { gpsi: holder.gpsi, bucketRefId: [PASS_BUCKET] }, customer: holder.customer };
    }
    if (!this.holding.has(candidate.gpsi)) {
      this.holding.add(candidate.gpsi);
      this.withPass.push(candidate);
    }
    return { operation: 'addBuckets', input: { gpsi: candidate.gpsi, bucketRefId: [PASS_BUCKET] }, customer: candidate.customer };
  }
}
