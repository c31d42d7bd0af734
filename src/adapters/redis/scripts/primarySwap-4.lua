-- SwapPrimaryBucket: the current primary's sub-balances are replaced by the new primary's (full allocation),
-- and the subscription moves to the plan offering the new primary, so later events bill that plan.
-- KEYS: subscription, balances, ledger, done(commandId)   ARGV: context JSON, {bucketRefId, wholesalePlanId, seeds} JSON
-- @include balance
local ctx = cjson.decode(ARGV[1])
local recorded = replay(KEYS[4], ctx, KEYS[1])
if recorded then return recorded end
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ctx.gpsi, ctx.visible)
if refused then return finish(KEYS[4], ctx, { error = refused }) end
local elsewhere = wrongZone(facts, ctx)
if elsewhere then return elsewhere end

local payload = cjson.decode(ARGV[2])
local current, fromPlan = facts[FACT_PRIMARY], facts[FACT_PLAN]
if current == payload.bucketRefId then
  return finish(KEYS[4], ctx, { error = { code = 'CONFLICT', message = 'Bucket ' .. current .. ' is already the primary bucket',
    problems = { { path = 'bucketRefId', reason = 'is already the primary bucket of this subscription' } } } })
end

local changes = {}
for _, b in ipairs(loadBalances(KEYS[2], ctx.gpsi)) do
  if b.bucketKind == 'PRIMARY' then changes[#changes + 1] = removeBalance(b, 'Removed') end
end
keepOwnerMark(facts[FACT_CUSTOMER])
instantiate(KEYS[1], ctx.gpsi, payload.seeds, changes)
writeBalances(KEYS[2])
redis.call('HSET', KEYS[1], 'primaryBucketRefId', payload.bucketRefId, 'wholesalePlanId', payload.wholesalePlanId)
facts[FACT_PRIMARY], facts[FACT_PLAN] = payload.bucketRefId, payload.wholesalePlanId
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes,
  { fromBucketRefId = current, toBucketRefId = payload.bucketRefId, fromWholesalePlanId = fromPlan }, facts), facts)
