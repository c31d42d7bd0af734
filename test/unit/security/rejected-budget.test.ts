import { createRejectedBudget, TokenBucket } from '../../../src/security/rejected-budget';

describe('the budget of refused traffic', () => {
  it('a bucket gives its burst at once, then refills at its rate, never above the burst', () => {
    const bucket = new TokenBucket(2, 3, 0);
    expect([0, 0, 0, 0].map(() => bucket.take(0))).toEqual([true, true, true, false]);
    expect([bucket.take(499), bucket.take(500), bucket.take(500)]).toEqual([false, true, false]);
    expect([1, 2, 3, 4].map(() => bucket.take(60_000))).toEqual([true, true, true, false]);
  });

  it('one bucket per claimed partner, one shared bucket for every claim naming no known partner', () => {
    let now = 0;
    const partnerOf: Record<string, string> = { 'Bearer alpha': 'alpha', 'Bearer alpha-brand': 'alpha', 'Bearer beta': 'beta' };
    const budget = createRejectedBudget(
      { perSecond: 1, burst: 2 },
      (authorization) => (authorization ? partnerOf[authorization] : undefined),
      () => now,
    );
    const take = (authorization?: string) => budget.take(authorization);
    expect([take('Bearer alpha'), take('Bearer alpha-brand'), take('Bearer alpha')]).toEqual([true, true, false]);
    expect([take('Bearer beta'), take('Bearer beta'), take('Bearer beta')]).toEqual([true, true, false]);
    // Invented claims, or none at all, share one bucket: a flood of them cannot grow the buckets or drain alpha's.
    expect([take('Bearer x1'), take(undefined), take('Bearer x2')]).toEqual([true, true, false]);
    now = 1000;
    expect([take('Bearer alpha'), take('Bearer alpha'), take('Bearer x3')]).toEqual([true, false, true]);
  });

  it("says when a claimed partner's budget is spent, without taking from it", () => {
    let now = 0;
    const budget = createRejectedBudget(
      { perSecond: 1, burst: 1 },
      (authorization) => authorization,
      () => now,
    );
    expect([budget.spent('alpha'), budget.spent('alpha')]).toEqual([false, false]);
    expect(budget.take('alpha')).toBe(true);
    expect([budget.spent('alpha'), budget.spent('beta')]).toEqual([true, false]);
    now = 1000;
    expect(budget.spent('alpha')).toBe(false);
    expect(createRejectedBudget({ perSecond: 0, burst: 1 }, () => undefined).spent(undefined)).toBe(false);
  });

  it('a rate of 0 is no budget: every refusal is recorded or answered', () => {
    const budget = createRejectedBudget(
      { perSecond: 0, burst: 1 },
      () => undefined,
      () => 0,
    );
    expect(Array.from({ length: 100 }, () => budget.take(undefined)).every(Boolean)).toBe(true);
  });
});
