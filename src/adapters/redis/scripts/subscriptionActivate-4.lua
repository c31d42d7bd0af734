-- activate: PENDING -> ACTIVE, instantiating the plan's primary bucket and the add-ons requested at
-- creation (seeds computed from the catalog by the caller for the plan it read). The outcome is recorded
-- under the cause for the outcome TTL, like a command's, so the same cause again returns it unchanged
-- (same billing event). Once that record is gone, or for another cause, an ACTIVE subscription answers
-- with its current state and no changes: the event keeps its id (derived from the subscription), so
-- consumers that saw the first one drop it. Nothing of the outcome stays in the subscription hash.
-- KEYS: subscription, balances, ledger, done(causeId)
-- ARGV: context JSON {gpsi, at, causeId, correlationId, operation, retention, ttl, cycleStart, nextRenewalAt},
--       {wholesalePlanId, primaryBucketRefId, bucketRefIds, seeds} JSON
-- Returns { outcome JSON, replayed 0|1 }, or { error JSON, 0 }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
local recorded = replay(KEYS[4], ctx)
if recorded then return recorded end
local s = redis.call('HMGET', KEYS[1], 'status', 'activatedAt', 'wholesalePlanId', 'wholesaleCustomerId')
if not s[1] then
  return { cjson.encode({ error = { code = 'NOT_FOUND', message = 'No subscription for gpsi ' .. ctx.gpsi } }), 0 }
end
local payload = cjson.decode(ARGV[2])
local function outcome(at, changes)
  return { at = at, correlationId = ctx.correlationId, causeId = ctx.causeId, subscription = subscriptionFacts(KEYS[1]),
    changes = changes, bucketRefIds = payload.bucketRefIds }
end
if s[1] == 'ACTIVE' then return { cjson.encode(outcome(s[2] or ctx.at, {})), 1 } end
if s[1] ~= 'PENDING' then
  return { cjson.encode({ error = { code = 'CONFLICT', message = 'The subscription for gpsi ' .. ctx.gpsi .. ' is ' .. s[1] .. ', not PENDING' } }), 0 }
end
if s[3] ~= payload.wholesalePlanId then
  return { cjson.encode({ error = { code = 'CONFLICT', message = 'The plan changed while activating; read it again' } }), 0 }
end

redis.call('HSET', KEYS[1], 'status', 'ACTIVE', 'activatedAt', ctx.at, 'primaryBucketRefId', payload.primaryBucketRefId,
  'cycleNo', '1', 'cycleStart', ctx.cycleStart, 'nextRenewalAt', ctx.nextRenewalAt, FORMAT_FIELD, FORMAT_TEXT)
local changes = {}
setField(OWNER_FIELD, s[4]) -- the owner mark QueryBalances reads, written with the status
instantiate(KEYS[1], ctx.gpsi, payload.seeds, changes)
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, outcome(ctx.at, changes))
