-- AddBuckets: new sub-balances for each add-on bucket (seeds computed from the catalog by the caller).
-- KEYS: subscription, balances, ledger, done(commandId)   ARGV: context JSON, seeds JSON
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
local changes = {}
keepOwnerMark(facts[FACT_CUSTOMER])
instantiate(KEYS[1], ctx.gpsi, payload.seeds, changes)
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes, { bucketRefIds = payload.bucketRefIds }, facts), facts)
