-- AdmissionTake: the commands of one partner that arrived together, admitted in one step — its command
-- rate (a token bucket) and, for the changes among them, its idempotency quota (changes recorded within
-- the window). One round trip per partner and batch instead of a reply-cache lookup per change; both live
-- in one hash, so the step reads it once and writes it once.
-- Rate: fields milli (tokens x 1000, so the arithmetic stays whole) and at (ms of the last refill), refilled
-- continuously at `rate` per second up to `burst`; rate 0 = no limit. Commands are admitted in order, as
-- many as there are tokens.
-- Quota: the partner's changes counted in time buckets, field = bucket number (seconds since the epoch /
-- bucket size), value = changes counted in it. Buckets wholly outside the window are dropped as they are
-- met, so the count falls back as outcomes expire (a bucket late at most: it errs on the safe side). The
-- admitted changes are counted in order while the quota lasts; those past it may only replay a recorded
-- outcome. `uncount` takes back changes counted earlier that recorded nothing new (a redelivery answered
-- from its record, a command refused before it ran), newest buckets first, never below zero.
-- Leases: when every command asking got its token (and every change its count), up to `leaseTokens`
-- more tokens and `leaseQuota` more counts are taken while they last, for the worker to admit its next
-- commands with no call (the worker's reserve). What was taken is gone from the partner's bucket and
-- counted in its quota whether or not the worker uses it, so the rate and the quota still bound the total.
-- Time is Redis's own clock, so every worker shares one notion of "now".
-- KEYS: the partner's admission state (hash; {partner:<id>} hash tag)
-- ARGV: rate per second (0 = off), burst, kinds (one letter per command in arrival order: c = change,
--       q = query), quota (0 = off), window seconds, bucket seconds, uncount, leaseTokens, leaseQuota
-- Returns { commands admitted (the first n), ms until one more token (when fewer than all), changes among
--           them that may record (the first m), changes held within the window after this step,
--           tokens leased, counts leased }
local rate, burst, kinds = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local quota, window, bucketSeconds, uncount = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local leaseTokens, leaseQuota = tonumber(ARGV[8]) or 0, tonumber(ARGV[9]) or 0
local tokensLeased, countsLeased = 0, 0
local counting = quota > 0
local time = redis.call('TIME')
local flat = redis.call('HGETALL', KEYS[1])
local state = {}
for i = 1, #flat, 2 do state[flat[i]] = flat[i + 1] end
local writes, stale = {}, {}

local wanted = #kinds
local granted, retryMs = wanted, 0
if rate > 0 then
  local capacity = burst * 1000
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local milli, at = tonumber(state.milli) or capacity, tonumber(state.at) or now
  if now > at then milli = math.min(capacity, milli + (now - at) * rate) end
  granted = math.min(wanted, math.floor(milli / 1000))
  milli = milli - granted * 1000
  if granted < wanted then retryMs = math.ceil((1000 - milli) / rate)
  else tokensLeased = math.min(leaseTokens, math.floor(milli / 1000)) end
  milli = milli - tokensLeased * 1000
  writes[#writes + 1], writes[#writes + 2] = 'milli', string.format('%d', milli)
  writes[#writes + 1], writes[#writes + 2] = 'at', string.format('%d', math.max(now, at))
end

local _, changes = string.gsub(string.sub(kinds, 1, granted), 'c', '')
local recordable, held = changes, 0
if counting then
  local current = math.floor(tonumber(time[1]) / bucketSeconds)
  local oldest = current - math.ceil(window / bucketSeconds) + 1
  local counts, order, dirty = {}, {}, {}
  for field, value in pairs(state) do
    local bucket = tonumber(field)
    if bucket and bucket < oldest then
      stale[#stale + 1] = field
    elseif bucket then
      counts[bucket] = tonumber(value)
      order[#order + 1] = bucket
      held = held + counts[bucket]
    end
  end
  table.sort(order, function(a, b) return a > b end)
  for _, bucket in ipairs(order) do
    if uncount == 0 then break end
    local taken = math.min(uncount, counts[bucket])
    if taken > 0 then
      counts[bucket], uncount, held = counts[bucket] - taken, uncount - taken, held - taken
      dirty[#dirty + 1] = bucket
    end
  end
  recordable = math.max(0, math.min(changes, quota - held))
  if recordable == changes then countsLeased = math.max(0, math.min(leaseQuota, quota - held - recordable)) end
  if recordable + countsLeased > 0 then
    held = held + recordable + countsLeased
    if counts[current] == nil then counts[current] = 0 end
    counts[current] = counts[current] + recordable + countsLeased
    dirty[#dirty + 1] = current
  end
  for _, bucket in ipairs(dirty) do
    writes[#writes + 1], writes[#writes + 2] = string.format('%d', bucket), string.format('%d', counts[bucket])
  end
end

if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
if #writes > 0 then
  redis.call('HSET', KEYS[1], unpack(writes))
  -- Kept while a counted change may still be in the window; a rate bucket alone is full again (so
  -- forgetting it changes nothing) after burst / rate seconds.
  local keepMs = counting and (window + bucketSeconds) * 1000 or math.ceil(burst * 1000 / math.max(rate, 1)) + 1000
  redis.call('PEXPIRE', KEYS[1], keepMs)
end
return { granted, retryMs, recordable, held, tokensLeased, countsLeased }
