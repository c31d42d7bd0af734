-- TransferBalance, step 2 on the target: adds the amount to the sub-balance (as purchased credit, an Add),
-- or refuses (no ACTIVE subscription of the same owner, no such sub-balance, another type or unit, above
-- the maximum), once per transfer id: a second call answers what the first did.
-- KEYS: subscription, balances, ledger, credits
-- ARGV: context JSON (gpsi = the target, visible, commandId = transfer id, correlationId, operation, at, retention), {subBalanceInstId, subBalanceType, unitType, amount} JSON
-- Returns { 'credited', ledger row } or { 'refused', reason }.
-- @include balance
local ctx, p = cjson.decode(ARGV[1]), cjson.decode(ARGV[2])
local done = transferRead(KEYS[4], ctx.commandId)
if done then return { done[2], done[3] } end
local function refuse(reason)
  redis.call('HSET', KEYS[4], ctx.commandId, table.concat({ TRANSFER_FORMAT, 'refused', reason }, '|'))
  return { 'refused', reason }
end
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ctx.gpsi, ctx.visible)
if refused then return refuse(refused.message) end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
local b = balanceLookup(ctx.gpsi)(p.subBalanceInstId)
if not b then return refuse('toSubBalanceInstId names no sub-balance of ' .. ctx.gpsi) end
if b.subBalanceType ~= p.subBalanceType or b.unitType ~= p.unitType then
  return refuse('toSubBalanceInstId is ' .. b.subBalanceType .. ' in ' .. b.unitType .. ', not ' .. p.subBalanceType .. ' in ' .. p.unitType)
end
local amount = tonumber(p.amount)
if tonumber(b.remaining) + amount > MAX_MILLI then return refuse('would take the remaining balance of ' .. b.subBalanceInstId .. ' above ' .. units(MAX_MILLI)) end
local before = amountsOf(b)
b.remaining, b.purchased = fmt(tonumber(b.remaining) + amount), fmt(tonumber(b.purchased or '0') + amount)
saveBalance(b)
writeBalances(KEYS[2])
local changes = { change('Add', b, before, amountsOf(b), fmt(amount)) }
appendLedger(KEYS[3], ctx, changes)
local row = ledgerChange(changes[1])
redis.call('HSET', KEYS[4], ctx.commandId, table.concat({ TRANSFER_FORMAT, 'credited', row }, '|'))
return { 'credited', row }
