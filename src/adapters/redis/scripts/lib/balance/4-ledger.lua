-- The ledger: one stored entry per operation.
-- Numbers in the ledger's and the records' rows drop a whole unit's three zeros: `k` stands for them
-- (5000 -> 5k, 10000000 -> 10000k; 1500, 0 and -3 stay). Quantities are milli-units, so nearly every
-- amount ends in 000, and a record of seven sub-balances is ~40 bytes shorter: most then fit jemalloc's
-- 448-byte class instead of the 512. `numbers` is `sep`-separated numbers; read by milliOf (TypeScript).
local function kiloZeros(numbers, sep)
  if numbers == '' then return numbers end
  local compact = string.gsub(numbers .. sep, '000' .. sep, 'k' .. sep)
  return string.sub(compact, 1, -2)
end

-- The ledger: ONE entry per operation, newest first, trimmed to the retention (counted in operations):
--   at|operation|c1;c2;...|correlationId
-- correlationId comes last, so it may hold any character (a reader takes everything after the third |).
-- Each change is comma-separated positional fields, empty = absent, trailing empty fields left out:
--   change,seq,bucketRefId,subBalanceType,unitType,quantity,
--   before.remaining,before.allocated,before.rollover,after.remaining,after.allocated,after.rollover,
--   before.purchased,after.purchased,validFrom,validUntil,purchasedUntil
-- The numbers (from quantity on) drop a whole unit's zeros (kiloZeros).
-- A purchased amount of 0 is left empty; the dates (billing epoch ms) are the sub-balance's after the
-- change. A Created sub-balance is full with no rollover or purchased credit: its after part is the
-- allocation alone (,,allocated).
-- `shownRows` (a command record's: the balances hash's values by field): a sub-balance the record's rows
-- show is named by its row, so its bucketRefId, subBalanceType and unitType are left empty here
-- (decodeOutcome fills them in).
-- This is the only writer (of the ledger and of outcomes' changeRows); src/adapters/redis/ledger-entry.ts is the only reader.
local function ledgerChange(c, shownRows)
  local before, after = c.before or {}, c.after or {}
  local seq = string.match(c.subBalanceInstId, '%-(%d+)$')
  local shown = shownRows ~= nil and shownRows[seq] ~= nil
  local function credit(amounts) return (amounts.purchased ~= '0' and amounts.purchased) or '' end
  local fields = { c.change, seq, shown and '' or c.bucketRefId, shown and '' or c.subBalanceType, shown and '' or c.unitType, c.quantity or '',
    before.remaining or '', before.allocated or '', before.rollover or '', after.remaining or '', after.allocated or '', after.rollover or '',
    credit(before), credit(after), c.validFrom or '', c.validUntil or '', c.purchasedUntil or '' }
  if c.change == 'Created' and after.remaining == after.allocated and after.rollover == '0' and after.purchased == '0' then
    fields[10], fields[12] = '', ''
  end
  local last = #fields
  while fields[last] == '' do last = last - 1 end
  if last < 6 then return table.concat(fields, ',', 1, last) end
  return table.concat(fields, ',', 1, 5) .. ',' .. kiloZeros(table.concat(fields, ',', 6, last), ',')
end

local function appendLedger(ledgerKey, ctx, changes)
  if #changes == 0 then return end
  local encoded = {}
  local longest, most = 1, -1
  for i, c in ipairs(changes) do
    encoded[i] = ledgerChange(c)
    local commas = select(2, string.gsub(encoded[i], ',', ','))
    if commas > most then longest, most = i, commas end
  end
  -- The entry's format, as the 18th field of its longest change (fewest empty fields to add): a field the
  -- release before reads nothing from.
  encoded[longest] = encoded[longest] .. string.rep(',', 17 - most) .. FORMAT_TEXT
  -- LPUSH answers the new length: trimmed only when it exceeds the retention.
  local length = redis.call('LPUSH', ledgerKey, ctx.at .. '|' .. ctx.operation .. '|' .. table.concat(encoded, ';') .. '|' .. ctx.correlationId)
  local retention = tonumber(ctx.retention)
  if retention > 0 and length > retention then redis.call('LTRIM', ledgerKey, 0, retention - 1) end
end
