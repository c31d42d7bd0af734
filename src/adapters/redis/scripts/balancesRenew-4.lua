-- Renewal at a bill cycle start, once per subscription and cycle: applies only while the subscription's
-- nextRenewalAt is the cycle asked for (several schedulers may race; one wins, the others see it moved).
-- Mirrors renewBalances (domain/balance/renewal.ts): each sub-balance rolls its unused part over up to its
-- cap and restarts at allocation + rollover + the purchased credit kept (subBalanceTypes listed in
-- carryOver keep theirs; a partial first cycle: see renewBalance); a dated bucket (validUntil) is a one-off
-- grant left alone until balancesExpire ends it; a sub-balance from before validity dates whose endCycle
-- has come expires. The outcome goes to the outbox for the billing event.
-- KEYS: subscription, balances, ledger, outbox
-- ARGV: context JSON {gpsi, at, cycleStart, nextRenewalAt, correlationId, operation, retention, carryOver: [subBalanceType...]}
-- Returns { outcome JSON or '', 'renewed' | 'inactive' | 'not-due' }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
local carryOver = {}
for _, subBalanceType in ipairs(ctx.carryOver or {}) do carryOver[subBalanceType] = true end
local s = redis.call('HMGET', KEYS[1], 'status', 'nextRenewalAt', 'cycleNo', 'wholesaleCustomerId')
if s[1] ~= 'ACTIVE' then return { '', 'inactive' } end
if s[2] ~= ctx.cycleStart then return { '', 'not-due' } end

local cycleNo = tonumber(s[3]) + 1
local changes = {}
for _, b in ipairs(loadBalances(KEYS[2], ctx.gpsi)) do
  local endCycle = tonumber(b.endCycle)
  if b.validUntil then
    -- left as it is: its validity, not the bill cycle, ends it
  elseif endCycle ~= 0 and endCycle <= cycleNo then
    changes[#changes + 1] = removeBalance(b, 'Expired')
  else
    local before = amountsOf(b)
    renewBalance(b, carryOver[b.subBalanceType] == true)
    saveBalance(b)
    changes[#changes + 1] = change('Renewed', b, before, amountsOf(b), nil)
  end
end
keepOwnerMark(s[4])
writeBalances(KEYS[2])
redis.call('HSET', KEYS[1], 'cycleNo', fmt(cycleNo), 'cycleStart', ctx.cycleStart, 'nextRenewalAt', ctx.nextRenewalAt)
appendLedger(KEYS[3], ctx, changes)
local encoded = cjson.encode(success(KEYS[1], KEYS[2], ctx, changes))
redis.call('RPUSH', KEYS[4], encoded)
return { encoded, 'renewed' }
