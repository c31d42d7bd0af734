-- RateLimitTake: up to `count` tokens from a partner's bucket (token bucket), refilled continuously at
-- `rate` per second up to `burst`. Time is Redis's own clock, so every worker shares one notion of "now".
-- Tokens are kept in thousandths so the arithmetic stays whole numbers. The worker asks once for all the
-- commands of a partner that arrived together; they are admitted in order, as many as there are tokens.
-- KEYS: bucket (hash: milli = tokens x 1000, at = ms of the last refill)   ARGV: rate per second, burst, count (default 1)
-- Returns { tokens granted (0..count), milliseconds until one more token is available when fewer than count }.
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local wanted = tonumber(ARGV[3]) or 1
local capacity = burst * 1000
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'milli', 'at')
local milli, at = tonumber(state[1]) or capacity, tonumber(state[2]) or now
if now > at then milli = math.min(capacity, milli + (now - at) * rate) end
local granted = math.min(wanted, math.floor(milli / 1000))
milli = milli - granted * 1000
local retryMs = 0
if granted < wanted then retryMs = math.ceil((1000 - milli) / rate) end
redis.call('HSET', KEYS[1], 'milli', string.format('%d', milli), 'at', string.format('%d', math.max(now, at)))
-- An idle bucket is full again after burst / rate seconds: then forgetting it changes nothing.
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return { granted, retryMs }
