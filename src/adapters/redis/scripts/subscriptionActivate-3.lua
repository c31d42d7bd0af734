-- activate: PENDING -> ACTIVE, instantiating the plan's primary bucket and the add-ons requested at
-- creation (seeds computed from the catalog by the caller for the plan it read). The outcome is kept in the
-- subscription so activating again returns it unchanged (same billing event).
-- KEYS: subscription, balances, ledger   ARGV: context JSON, {wholesalePlanId, primaryBucketRefId, bucketRefIds, seeds} JSON
-- Returns { outcome JSON, replayed 0|1 }, or { error JSON, 0 }.
-- @include balance
local s = redis.call('HMGET', KEYS[1], 'status', 'activation', 'wholesalePlanId')
local ctx = cjson.decode(ARGV[1])
if not s[1] then
  return { cjson.encode({ error = { code = 'NOT_FOUND', message = 'No subscription for gpsi ' .. ctx.gpsi } }), 0 }
end
if s[1] == 'ACTIVE' then return { s[2], 1 } end
if s[1] ~= 'PENDING' then
  return { cjson.encode({ error = { code = 'CONFLICT', message = 'The subscription for gpsi ' .. ctx.gpsi .. ' is ' .. s[1] .. ', not PENDING' } }), 0 }
end
local payload = cjson.decode(ARGV[2])
if s[3] ~= payload.wholesalePlanId then
  return { cjson.encode({ error = { code = 'CONFLICT', message = 'The plan changed while activating; read it again' } }), 0 }
end

redis.call('HSET', KEYS[1], 'status', 'ACTIVE', 'activatedAt', ctx.at, 'primaryBucketRefId', payload.primaryBucketRefId,
  'cycleNo', '1', 'cycleStart', ctx.cycleStart, 'nextRenewalAt', ctx.nextRenewalAt)
local changes = {}
for _, seed in ipairs(payload.seeds) do changes[#changes + 1] = instantiate(KEYS[1], KEYS[2], ctx.gpsi, seed, 1) end
appendLedger(KEYS[3], ctx, changes)
local outcome = success(KEYS[1], KEYS[2], ctx, changes, { causeId = ctx.causeId, bucketRefIds = payload.bucketRefIds })
local encoded = cjson.encode(outcome)
redis.call('HSET', KEYS[1], 'activation', encoded)
return { encoded, 0 }
