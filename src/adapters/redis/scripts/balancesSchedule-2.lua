-- The renewal scheduler's view of a subscription, in one read: status, bill cycle, next renewal, and the
-- next validity end among its sub-balances (a dated bucket's or purchased credit's; nextExpiryOf in
-- domain/balance/renewal.ts), so renewals and expiries are taken in time order.
-- KEYS: subscription, balances   ARGV: gpsi
-- Returns '' (no subscription) or JSON {status, billCycleStartDay, billCycleTimeZone, nextRenewalAt, nextExpiry (billing epoch ms)}.
-- @flags no-writes
-- @include balance
local s = redis.call('HMGET', KEYS[1], 'status', 'billCycleStartDay', 'billCycleTimeZone', 'nextRenewalAt')
if not s[1] then return '' end
local nextExpiry
for _, b in ipairs(loadBalances(KEYS[2], ARGV[1])) do
  for _, field in ipairs({ 'validUntil', 'purchasedUntil' }) do
    local ending = tonumber(b[field])
    if ending and (not nextExpiry or ending < nextExpiry) then nextExpiry = ending end
  end
end
return cjson.encode({ status = s[1], billCycleStartDay = s[2], billCycleTimeZone = s[3] or nil, nextRenewalAt = s[4] or nil,
  nextExpiry = nextExpiry and fmt(nextExpiry) or nil })
