-- TransferBalance, step 1 on the source: takes the amount from the sub-balance (a Subtract: the grant first,
-- never below what reservations hold), records the transfer as pending, and the command's outcome, in one step.
-- KEYS: subscription, balances, ledger, done(commandId = transfer id), transfers
-- ARGV: context JSON, {subBalanceInstId, amount} JSON
-- @include balance
local answer, ctx, p, facts = commandStart(KEYS, ARGV)
if answer then return answer end
local function invalid(path, reason) return fieldRefusal(KEYS[4], ctx, 'BAD_REQUEST', path, reason) end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
local b = balanceLookup(ctx.gpsi)(p.subBalanceInstId)
if not b then return invalid('subBalanceInstId', 'names no sub-balance of this subscription') end
local amount, remaining, purchased = tonumber(p.amount), tonumber(b.remaining), tonumber(b.purchased or '0')
local held = reservedOf(b.seq)
if remaining - amount < held then
  return invalid('amount', 'exceeds the available balance (requested ' .. units(amount) .. ', available ' .. units(availableOf(remaining, held)) .. ')')
end
local before = amountsOf(b)
local taken = math.max(0, amount - (remaining - purchased)) -- the grant first, then purchased credit
b.remaining, b.purchased = fmt(remaining - amount), fmt(purchased - taken)
if purchased - taken == 0 then b.purchasedUntil = nil end
saveBalance(b)
writeBalances(KEYS[2])
local changes = { change('Subtract', b, before, amountsOf(b), fmt(amount)) }
appendLedger(KEYS[3], ctx, changes)
redis.call('HSET', KEYS[5], ctx.commandId, table.concat({ TRANSFER_FORMAT, 'pending', b.seq, fmt(amount), fmt(taken) }, '|'))
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes, {}, facts), facts)
