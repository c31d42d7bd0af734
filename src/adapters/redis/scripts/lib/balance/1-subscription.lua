-- Shared helpers of the subscription and balance scripts (-- @include balance), defined once per function library load,
-- in five pieces joined in order (1-subscription, 2-balance-rows, 3-rules, 4-ledger, 5-outcome-records).
-- The balance rules' source of truth is src/domain/balance/arithmetic.ts (and thresholds.ts): the rules in
-- 3-rules.lua are its atomic production copy, checked against it on a real Redis by
-- test/integration/balance-rules.test.ts. A rule changes there first.
-- Quantities are whole milli-units kept as decimal strings (cjson would print big numbers as 1e+15);
-- they are exact in Lua's doubles below 2^53 and MAX_MILLI keeps them there.
local MAX_MILLI = 1000000000000000

-- Stored formats. Every record of the balance side names the format it is written in (`v` in a JSON record
-- and in the subscription and balances hashes; the 18th field of one change of a ledger entry), so during a
-- rolling restart a worker that meets a format newer than it reads stops with an error instead of
-- misreading it. No marker: format 1, the release before, whose layout format 2 keeps; each marker sits
-- where that release's reader reads nothing, so it reads format 2 as its own. A format that changes a
-- layout raises FORMAT (and RECORD_FORMAT in record-format.ts) and keeps reading the ones before.
local FORMAT, FORMAT_TEXT = 2, '2'
local FORMAT_FIELD = 'v'

-- Stops on a record of a format this worker cannot read (absent, 1 and FORMAT it can).
local function readableFormat(marker, what)
  if marker and marker ~= '1' and marker ~= FORMAT_TEXT then
    error('stored ' .. what .. ' of format ' .. tostring(marker) .. ': newer than this worker reads (up to ' .. FORMAT_TEXT .. ')')
  end
end

local function fmt(n)
  return string.format('%d', n)
end

-- Milli-units as a decimal number of units, printed like JavaScript does (1500 -> "1.5").
local function units(milli)
  local whole, fraction = math.floor(milli / 1000), milli % 1000
  if fraction == 0 then return fmt(whole) end
  local digits = string.gsub(string.format('%03d', fraction), '0+$', '')
  return fmt(whole) .. '.' .. digits
end

-- The subscription facts every outcome carries, so an event can be rebuilt from the outcome alone: the values
-- in FACT_FIELDS order (false = absent), named by the worker (decodeFacts in balance-outcome.ts, the same
-- list) — field names in every 24 h outcome record were 40 % of its facts' bytes.
local FACT_FIELDS = { 'gpsi', 'subscriptionId', 'subscriberId', 'wholesaleCustomerId', 'wholesalePlanId', 'primaryBucketRefId',
  'billCycleFrequency', 'billCycleStartDay', 'billCycleTimeZone', 'cycleNo', 'cycleStart', 'nextRenewalAt', 'status' }

local function subscriptionFacts(subKey)
  return redis.call('HMGET', subKey, unpack(FACT_FIELDS))
end
local FACT_CUSTOMER, FACT_PLAN, FACT_PRIMARY, FACT_ZONE, FACT_STATUS = 4, 5, 6, 9, 13

-- Every balance operation needs an ACTIVE subscription the caller can see: its owner is one of `visible`
-- (the acting node and the nodes below it in the customer hierarchy). Missing and invisible answer alike.
-- `facts`: the subscription's (subscriptionFacts), read once for this check and the outcome.
local function precondition(facts, gpsi, visible)
  local status, owner = facts[FACT_STATUS], facts[FACT_CUSTOMER]
  local seen = false
  for _, id in ipairs(visible) do
    if id == owner then seen = true break end
  end
  if not status or not seen then
    return { code = 'NOT_FOUND', message = 'No subscription for gpsi ' .. gpsi .. ' belongs to this wholesale customer' }
  end
  -- an ended subscription is gone for its owner too, saying why (refusalOf in subscription-access.ts)
  if status == 'PORTED_OUT' then
    return { code = 'NOT_FOUND', message = 'The number ' .. gpsi .. ' ported out to another operator; its subscription has ended',
      problems = { { path = 'gpsi', reason = 'ported out' } } }
  end
  if status ~= 'ACTIVE' then
    return { code = 'CONFLICT', message = 'The subscription for gpsi ' .. gpsi .. ' is ' .. status .. ', not ACTIVE',
      problems = { { path = 'gpsi', reason = 'subscription is ' .. status } } }
  end
  return nil
end

-- Dates that depend on the subscription's time zone (a `cycles` validity) are computed by the worker in the
-- zone it expects (ctx.zone, mirroring DEFAULT_BILL_CYCLE_TIME_ZONE when absent): reading the zone first
-- would cost a round trip. When the subscription's zone is another, nothing is written and the script
-- answers { zone, 2 }: the worker computes again in that zone and calls once more.
local function wrongZone(facts, ctx)
  if ctx.zone == nil or ctx.zone == cjson.null then return nil end
  local zone = facts[FACT_ZONE] or 'UTC'
  if zone == ctx.zone then return nil end
  return { zone, 2 }
end
