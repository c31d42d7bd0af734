import type { DatedSeed } from '../../domain/balance/seeds';

/**
 * Seeds as the scripts take them (instantiate in scripts/lib/balance/): milli-unit amounts and dates
 * (billing epoch ms) as decimal strings, which Lua keeps exact (cjson would print large numbers as 1e+15).
 */
export const seedArgs = (seeds: readonly DatedSeed[]) =>
  seeds.map(({ validFor, firstCycle, ...s }) => ({
    ...s,
    allocated: String(s.allocated),
    rolloverCap: String(s.rolloverCap),
    ...(validFor ? { validFrom: String(validFor.start), validUntil: String(validFor.end) } : {}),
    ...(firstCycle ? { firstCycle: { allocation: String(firstCycle.allocation), rollover: firstCycle.rollover } } : {}),
  }));
