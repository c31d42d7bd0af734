-- RateLimitTake: one token from a partner's bucket (token bucket), refilled continuously at `rate` per
-- second up to `burst`. Time is Redis's own clock, so every worker shares one notion of "now".
-- Tokens are kept in thousandths so the arithmetic stays whole numbers.
-- KEYS: bucket (hash: milli = tokens x 1000, at = ms of the last refill)   ARGV: rate per second, burst
-- Returns { allowed (1|0), milliseconds until one token is available when refused }.
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local capacity = burst * 1000
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'milli', 'at')
local milli, at = tonumber(state[1]) or capacity, tonumber(state[2]) or now
if now > at then milli = math.min(capacity, milli + (now - at) * rate) end
local allowed, retryMs = 0, 0
if milli >= 1000 then
  milli = milli - 1000
  allowed = 1
else
  retryMs = math.ceil((1000 - milli) / rate)
end
redis.call('HSET', KEYS[1], 'milli', string.format('%d', milli), 'at', string.format('%d', math.max(now, at)))
-- An idle bucket is full again after burst / rate seconds: then forgetting it changes nothing.
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return { allowed, retryMs }
