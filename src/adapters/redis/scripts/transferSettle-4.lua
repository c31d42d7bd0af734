-- TransferBalance, step 3 on the source: a credited transfer is completed; a refused one is reversed (the
-- amount given back as it was taken: the purchased part as purchased credit), once: a settled transfer
-- answers its state.
-- KEYS: subscription, balances, ledger, transfers
-- ARGV: context JSON (gpsi = the source, commandId = transfer id, correlationId, at, retention), credited ('1' or '0')
-- Returns { state, ledger row of the reversal or '' }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
local t = transferRead(KEYS[4], ctx.commandId)
if not t then return { 'unknown', '' } end
if t[2] ~= 'pending' then return { t[2], t[6] or '' } end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[4], ctx.commandId, table.concat({ TRANSFER_FORMAT, 'completed', t[3], t[4], t[5] }, '|'))
  return { 'completed', '' }
end
readBalances(KEYS[2])
local b = balanceLookup(ctx.gpsi)(ctx.gpsi .. '-' .. t[3])
local row = ''
if b then
  local before, amount, taken = amountsOf(b), tonumber(t[4]), tonumber(t[5])
  b.remaining, b.purchased = fmt(tonumber(b.remaining) + amount), fmt(tonumber(b.purchased or '0') + taken)
  saveBalance(b)
  writeBalances(KEYS[2])
  local changes = { change('Add', b, before, amountsOf(b), fmt(amount)) }
  ctx.operation = 'TransferReversal'
  appendLedger(KEYS[3], ctx, changes)
  row = ledgerChange(changes[1])
end
redis.call('HSET', KEYS[4], ctx.commandId, table.concat({ TRANSFER_FORMAT, 'reversed', t[3], t[4], t[5], row }, '|'))
return { 'reversed', row }
