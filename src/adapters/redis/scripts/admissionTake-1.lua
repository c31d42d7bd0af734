-- AdmissionTake: the commands of one partner that arrived together, admitted in one step — its command
-- rate and, for the changes among them, its idempotency quota (changes recorded within the window). Both
-- live in one hash, so the step reads it once and writes it once.
-- Rate, counted on when the partner SENT each command (its record's timestamp), not when a worker got to
-- it: a backlog the service itself built up (a restart, an outage) is charged to the seconds the partner
-- sent it in, where it fitted. Field t<second> = commands admitted that were sent in that second. A
-- command is admitted while every window of 1, 10 and 60 s of sending that ends in its second holds at
-- most burst + rate x W of them: the same bound a token bucket of that rate and burst keeps, checked at
-- three scales. A partner that keeps to its rate is admitted whatever order its records are handled in;
-- one that floods is held to about its rate (at most burst / 60 more per second over a minute). A send
-- time is taken as at most now and at least now - backlog seconds, so a forged timestamp can gain at most
-- one backlog's worth of commands, once.
-- Quota: the partner's changes counted in time buckets, field = bucket number (seconds since the epoch /
-- bucket size), value = changes counted in it. Buckets wholly outside the window are dropped as they are
-- met, so the count falls back as outcomes expire (a bucket late at most: it errs on the safe side). The
-- admitted changes are counted in order while the quota lasts; those past it may only replay a recorded
-- outcome. `uncount` takes back changes counted earlier that recorded nothing new (a redelivery answered
-- from its record, a command refused before it ran), newest buckets first, never below zero.
-- Refunds: commands admitted earlier that turned out to be replays of a recorded outcome cost no rate;
-- their send times come back here and their seconds are counted down again.
-- Lease: when every change asking got its count, up to `leaseQuota` more counts are taken while they last,
-- for the worker to admit its next changes with no call (used only when the rate is off).
-- Time is Redis's own clock, so every worker shares one notion of "now".
-- Fields of another format (milli, at: the token bucket of earlier versions) are left alone: a worker of
-- that version keeps its own bucket beside these during a rolling restart, and the key expires.
-- KEYS: the partner's admission state (hash; {partner:<id>} hash tag)
-- ARGV: rate per second (0 = off), burst, kinds (one letter per command in arrival order: c = change,
--       q = query), send times (ms, comma-separated, one per command), quota (0 = off), window seconds,
--       bucket seconds, uncount, refunds (send times in ms, comma-separated, may be empty), leaseQuota,
--       backlog seconds
-- Returns { admitted ('1' or '0' per command, in order), ms until the first refused one could be admitted
--           (0 when none was), changes among the admitted that may record (the first m), changes held
--           within the window after this step, counts leased }
local rate, burst, kinds, sentList = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local quota, window, bucketSeconds, uncount = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local refundList, leaseQuota, backlog = ARGV[9], tonumber(ARGV[10]) or 0, tonumber(ARGV[11]) or 60
local counting = quota > 0
local time = redis.call('TIME')
local nowSec = tonumber(time[1])
local nowMs = nowSec * 1000 + math.floor(tonumber(time[2]) / 1000)
local flat = redis.call('HGETALL', KEYS[1])
local state = {}
for i = 1, #flat, 2 do state[flat[i]] = flat[i + 1] end
local writes, stale = {}, {}
local wanted = #kinds
local admitted = {}
local retryMs, countsLeased = 0, 0

-- The widest window checked, and how long a second's count matters: a backlog plus one such window.
local SCALES = { 1, 10, 60 }
local WIDEST = 60

local function secondOf(ms)
  local second = math.floor(tonumber(ms) / 1000)
  if second > nowSec then return nowSec end
  if second < nowSec - backlog then return nowSec - backlog end
  return second
end

if rate > 0 then
  local sent = {}
  for ms in string.gmatch(sentList, '[^,]+') do sent[#sent + 1] = secondOf(ms) end
  local counts, dirty = {}, {}
  local oldest = nowSec - backlog - WIDEST
  for field, value in pairs(state) do
    if string.sub(field, 1, 1) == 't' then
      local second = tonumber(string.sub(field, 2))
      if second and second >= oldest then counts[second] = tonumber(value) else stale[#stale + 1] = field end
    end
  end
  for ms in string.gmatch(refundList, '[^,]+') do
    local second = secondOf(ms)
    if (counts[second] or 0) > 0 then counts[second], dirty[second] = counts[second] - 1, true end
  end
  -- Whether one more command sent in `second` keeps every window ending there within its bound.
  local function fits(second)
    local sum, scale = 0, 1
    for back = 0, WIDEST - 1 do
      sum = sum + (counts[second - back] or 0)
      if back + 1 == SCALES[scale] then
        if sum + 1 > burst + rate * SCALES[scale] then return false end
        scale = scale + 1
      end
    end
    return true
  end
  -- For a refusal: when the windows ending at the next seconds from now would have room again.
  local function waitMs()
    for ahead = 1, WIDEST do
      if fits(nowSec + ahead) then return ahead * 1000 - (nowMs % 1000) end
    end
    return WIDEST * 1000
  end
  for i = 1, wanted do
    local second = sent[i] or nowSec
    if fits(second) then
      counts[second], dirty[second] = (counts[second] or 0) + 1, true
      admitted[i] = '1'
    else
      admitted[i] = '0'
      if retryMs == 0 then retryMs = waitMs() end
    end
  end
  for second in pairs(dirty) do
    if counts[second] > 0 then
      writes[#writes + 1], writes[#writes + 2] = 't' .. string.format('%d', second), string.format('%d', counts[second])
    else
      stale[#stale + 1] = 't' .. string.format('%d', second)
    end
  end
else
  for i = 1, wanted do admitted[i] = '1' end
end

local changes = 0
for i = 1, wanted do
  if admitted[i] == '1' and string.sub(kinds, i, i) == 'c' then changes = changes + 1 end
end
local recordable, held = changes, 0
if counting then
  local current = math.floor(nowSec / bucketSeconds)
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
  -- Kept while a counted change may still be in the window, or a second's count may still be checked.
  local rateMs = (backlog + WIDEST + 1) * 1000
  local quotaMs = counting and (window + bucketSeconds) * 1000 or 0
  redis.call('PEXPIRE', KEYS[1], math.max(rate > 0 and rateMs or 0, quotaMs))
end
return { table.concat(admitted), retryMs, recordable, held, countsLeased }
