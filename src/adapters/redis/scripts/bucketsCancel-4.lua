-- CancelBuckets: removes every instance of each named add-on. A bucket the subscription does not have is
-- NOT_FOUND, its primary bucket a CONFLICT; any problem cancels nothing.
-- KEYS: subscription, balances, ledger, done(commandId)   ARGV: context JSON, [{id, path}] JSON
-- @include balance
local ctx = cjson.decode(ARGV[1])
local recorded = replay(KEYS[4], ctx, KEYS[1])
if recorded then return recorded end
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ctx.gpsi, ctx.visible)
if refused then return finish(KEYS[4], ctx, { error = refused }) end

local balances = loadBalances(KEYS[2], ctx.gpsi)
keepOwnerMark(facts[FACT_CUSTOMER])
local held = {}
for _, b in ipairs(balances) do held[b.bucketRefId] = b.bucketKind end
local problems, code = {}, 'CONFLICT'
local cancelled = {}
for _, item in ipairs(cjson.decode(ARGV[2])) do
  if held[item.id] == 'PRIMARY' then
    problems[#problems + 1] = { path = item.path, reason = 'is the primary bucket, which cannot be cancelled (swap it instead)' }
  elseif held[item.id] == nil then
    problems[#problems + 1] = { path = item.path, reason = 'is not a bucket of this subscription' }
    code = 'NOT_FOUND'
  else
    cancelled[item.id] = true
  end
end
if #problems > 0 then
  return finish(KEYS[4], ctx, { error = { code = code, message = 'Buckets cannot be cancelled: ' .. #problems .. ' problem(s)', problems = problems } })
end

local changes, ids = {}, {}
for _, item in ipairs(cjson.decode(ARGV[2])) do ids[#ids + 1] = item.id end
for _, b in ipairs(balances) do
  if cancelled[b.bucketRefId] then changes[#changes + 1] = removeBalance(b, 'Removed') end
end
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes, { bucketRefIds = ids }, facts), facts)
