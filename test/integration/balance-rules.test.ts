import fc from 'fast-check';
import { Redis } from 'ioredis';
import { startLocalRedis } from '../../dev/stack';
import { readLuaSources } from '../../scripts/generate-redis-scripts';
import { renewAmounts } from '../../src/domain/balance/arithmetic';
import { MAX_MILLI } from '../../src/domain/balance/units';
import { reachedThresholds } from '../../src/domain/balance/thresholds';
import { milliOf } from '../../src/adapters/redis/ledger-entry';

/**
 * The balance rules live twice: src/domain/balance/arithmetic.ts and thresholds.ts are their source of
 * truth; scripts/lib/balance/3-rules.lua applies them atomically in Redis. Here the Lua lib, as the
 * generator joins it, runs on a real Redis (EVAL) on the same generated inputs as the TypeScript, and every
 * answer must be the same: a rule changed on one side only fails this file.
 */
const balanceLib = readLuaSources().libs.find((lib) => lib.name === 'balance')!;

/** The lib, its per-call state, then `body`: one EVAL of the helpers as every function defines them. */
const evalWithLib = (redis: Redis, body: string, input: unknown): Promise<string> =>
  redis.eval(`${balanceLib.source}\n${balanceLib.onCall.join('\n')}\n${body}`, 0, JSON.stringify(input)) as Promise<string>;

const RENEW = `
local out = {}
for i, c in ipairs(cjson.decode(ARGV[1])) do
  local b = { allocated = c.allocated, remaining = c.remaining, rollover = c.rollover, purchased = c.purchased,
    rolloverCap = c.rolloverCap, firstCycle = c.firstCycle }
  renewBalance(b, c.carryOver)
  out[i] = { allocated = b.allocated, remaining = b.remaining, rollover = b.rollover, purchased = b.purchased }
end
return cjson.encode(out)`;

const THRESHOLDS = `
local out = {}
for i, c in ipairs(cjson.decode(ARGV[1])) do
  local reached, b = {}, { allocated = c.allocated, remaining = c.remaining, rollover = c.rollover, alerted = c.alerted }
  markThresholds(b, c.levels, reached)
  local percents = {}
  for k, r in ipairs(reached) do percents[k] = r.percent end
  out[i] = table.concat(percents, ',')
end
return cjson.encode(out)`;

const KILO = `
local out = {}
for i, text in ipairs(cjson.decode(ARGV[1])) do out[i] = kiloZeros(text, ',') end
return cjson.encode(out)`;

const milli = (max = MAX_MILLI) =>
  fc.oneof(
    fc.integer({ min: 0, max }),
    fc.integer({ min: 0, max: Math.floor(max / 1000) }).map((n) => n * 1000),
  );

describe('balance rules: the Lua copy answers as arithmetic.ts does, on a real Redis', () => {
  let redis: Redis;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    const started = await startLocalRedis({ appendOnly: false });
    dispose = () => started.dispose();
    redis = new Redis(started.url);
  });

  afterAll(async () => {
    await redis?.quit();
    await dispose?.();
  });

  const renewal = fc
    .record({
      allocated: milli(MAX_MILLI / 4),
      grantLeft: milli(MAX_MILLI / 4),
      rollover: milli(MAX_MILLI / 4),
      purchased: milli(MAX_MILLI / 4),
      rolloverCap: milli(MAX_MILLI / 4),
      carryOver: fc.boolean(),
      firstCycle: fc.option(fc.record({ allocation: milli(MAX_MILLI / 4), rollover: fc.boolean() }), { nil: undefined }),
    })
    .map((c) => ({ ...c, remaining: c.grantLeft + c.purchased }));

  it('renewal: renewBalance = renewAmounts (rollover, cap, purchased credit kept or lapsing, a partial first cycle)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(renewal, { minLength: 1, maxLength: 50 }), async (cases) => {
        const lua = JSON.parse(
          await evalWithLib(
            redis,
            RENEW,
            cases.map((c) => ({
              allocated: String(c.allocated),
              remaining: String(c.remaining),
              rollover: String(c.rollover),
              purchased: String(c.purchased),
              rolloverCap: String(c.rolloverCap),
              carryOver: c.carryOver,
              // the row's token (instantiate): r or x, then the full allocation when it differs
              firstCycle: c.firstCycle && `${c.firstCycle.rollover ? 'r' : 'x'}${c.firstCycle.allocation !== c.allocated ? c.firstCycle.allocation : ''}`,
            })),
          ),
        ) as Record<string, string>[];
        const typescript = cases.map((c) => renewAmounts(c));
        expect(lua.map((a) => ({ allocated: Number(a.allocated), remaining: Number(a.remaining), rollover: Number(a.rollover), purchased: Number(a.purchased) }))).toEqual(
          typescript.map((a) => ({ allocated: a.allocated, remaining: a.remaining, rollover: a.rollover, purchased: a.purchased })),
        );
      }),
      { numRuns: 100 },
    );
  });

  const levels = fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 5 }).map((l) => [...l].sort((a, b) => a - b));
  const usage = levels
    .chain((l) =>
      fc.record({
        allocated: milli(MAX_MILLI / 2),
        rollover: milli(MAX_MILLI / 2),
        used: fc.double({ min: 0, max: 1, noNaN: true }),
        // often a level itself: a level already reported is not reported again
        alerted: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(...l)),
        levels: fc.constant(l),
      }),
    )
    .map((c) => ({ ...c, remaining: Math.floor((c.allocated + c.rollover) * (1 - c.used)) }));

  it('thresholds: markThresholds reaches the levels reachedThresholds does, exact at the largest balances', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(usage, { minLength: 1, maxLength: 50 }), async (cases) => {
        const lua = JSON.parse(
          await evalWithLib(
            redis,
            THRESHOLDS,
            cases.map((c) => ({
              allocated: String(c.allocated),
              rollover: String(c.rollover),
              remaining: String(c.remaining),
              alerted: String(c.alerted),
              levels: c.levels,
            })),
          ),
        ) as string[];
        expect(lua).toEqual(cases.map((c) => reachedThresholds(c, c.levels, c.alerted).join(',')));
      }),
      { numRuns: 100 },
    );
  });

  it('stored numbers: what kiloZeros writes, milliOf reads back as the same number', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(milli(), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 50 }), async (rows) => {
        const lua = JSON.parse(
          await evalWithLib(
            redis,
            KILO,
            rows.map((r) => r.join(',')),
          ),
        ) as string[];
        expect(lua.map((text) => text.split(',').map(milliOf))).toEqual(rows);
      }),
      { numRuns: 100 },
    );
  });
});
