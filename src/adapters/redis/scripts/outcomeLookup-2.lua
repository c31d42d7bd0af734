-- OutcomeLookup: a change's recorded outcome, else whether its partner may record one more. One round trip
-- per command, as the plain GET it replaces: the per-partner idempotency quota costs no extra call.
-- The quota counts the changes a partner recorded within the window (IDEMPOTENCY_TTL_SECONDS, the time an
-- outcome is kept) in time buckets of one hash: field = bucket number (seconds since the epoch / bucket
-- size), value = changes first seen in it. Buckets wholly outside the window are dropped as they are met,
-- so a partner's count falls back as its outcomes expire (a bucket late at most: it errs on the safe side).
-- Time is Redis's own clock, as in rateLimitTake. A redelivered change finds its outcome and is not counted.
-- KEYS: reply record (string), the partner's counter (hash) — one {partner:<id>} hash tag
-- ARGV: quota (0 = off), window seconds, bucket seconds
-- Returns { 1, stored outcome } | { 0, changes held now including this one } | { 2, changes held } (quota exhausted)
local stored = redis.call('GET', KEYS[1])
if stored then return { 1, stored } end
local quota, window, bucketSeconds = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if quota == 0 then return { 0, 0 } end
local now = tonumber(redis.call('TIME')[1])
local current = math.floor(now / bucketSeconds)
local oldest = current - math.ceil(window / bucketSeconds) + 1
local fields = redis.call('HGETALL', KEYS[2])
local held = 0
for i = 1, #fields, 2 do
  if tonumber(fields[i]) < oldest then
    redis.call('HDEL', KEYS[2], fields[i])
  else
    held = held + tonumber(fields[i + 1])
  end
end
if held >= quota then return { 2, held } end
redis.call('HINCRBY', KEYS[2], current, 1)
redis.call('EXPIRE', KEYS[2], window + bucketSeconds)
return { 0, held + 1 }
