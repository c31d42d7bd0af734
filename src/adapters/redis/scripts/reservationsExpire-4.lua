-- Releases every reservation of a subscription whose time is up (expiresAt <= now), once: a second run
-- (another instance, a retry) finds them gone. Each release goes to the subscription's reservation outbox
-- (published as ReservationExpired, then removed) in the same step. A subscription no longer ACTIVE loses
-- its reservations without events.
-- KEYS: subscription, balances, reservations, reservation outbox
-- ARGV: now (epoch ms on Redis's clock, the one expiresAt was stamped with), now (ISO 8601)
-- Returns { expired count, the next expiry among those left ('' = none) }.
-- @include balance
local now = tonumber(ARGV[1])
local facts = subscriptionFacts(KEYS[1])
if facts[FACT_STATUS] ~= 'ACTIVE' then
  redis.call('DEL', KEYS[3])
  return { 0, '' }
end
local flat = redis.call('HGETALL', KEYS[3])
local expired, nextAt = {}, nil
for i = 1, #flat, 2 do
  local r = reservationRead(KEYS[3], flat[i])
  if r.expiresAt <= now then expired[#expired + 1] = r
  elseif not nextAt or r.expiresAt < nextAt then nextAt = r.expiresAt end
end
if #expired > 0 then
  readBalances(KEYS[2])
  for _, r in ipairs(expired) do
    setReserved(r.seq, releaseAmounts(reservedOf(r.seq), r.amount))
    redis.call('HDEL', KEYS[3], r.id)
    redis.call('RPUSH', KEYS[4], cjson.encode({ v = FORMAT, t = ARGV[2], f = { facts[1], facts[2], facts[3], facts[4], facts[5] }, res = reservationFacts(r) }))
  end
  writeBalances(KEYS[2])
end
return { #expired, nextAt and fmt(nextAt) or '' }
