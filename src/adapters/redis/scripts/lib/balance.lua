-- Shared helpers of the subscription and balance scripts (-- @include balance), defined once per function library load.
-- Quantities are whole milli-units kept as decimal strings (cjson would print big numbers as 1e+15);
-- they are exact in Lua's doubles below 2^53 and MAX_MILLI keeps them there.
local MAX_MILLI = 1000000000000000

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

-- Splits text at every `sep` (one plain character), keeping empty parts: 'a||b' -> { 'a', '', 'b' }.
local function split(text, sep)
  local parts, from = {}, 1
  while true do
    local at = string.find(text, sep, from, true)
    if not at then
      parts[#parts + 1] = string.sub(text, from)
      return parts
    end
    parts[#parts + 1] = string.sub(text, from, at - 1)
    from = at + 1
  end
end

-- A sub-balance in the balances hash: field = its instance number (seq), value = positional text
--   bucketRefId|bucketKind|subBalanceType|unitType|allocated|remaining|rollover|rolloverCap|endCycle[|alerted[|firstCycle[|purchased]]]
-- (bucketKind as P or A; alerted = highest usage threshold reported this cycle; firstCycle, only during a
-- partial first cycle: 'r' (its unused part may roll over) or 'x' (it may not), then the full allocation to
-- restore at the first renewal when the first cycle's differs; purchased = the part of remaining bought by
-- UpdateBalances Add, absent = 0; empty optional fields are left out)
-- short enough for the hash to stay a listpack under Redis's default hash-max-listpack-value (64 bytes).
-- Dates, when a sub-balance has any, go in a second field <seq>v: validFrom|validUntil|purchasedUntil
-- (billing epoch ms; a dated bucket's validity and its purchased credit's end; empty = none), so the main
-- value stays short. Only loadBalances, saveBalance and removeBalance know this format here, and
-- decodeBalanceRows (balance-outcome.ts) in the worker; subBalanceInstId is <gpsi>-<seq>, rebuilt on load. The catalog refuses a bucketRefId containing the separator.
local BALANCE_FIELDS = { 'bucketRefId', 'bucketKind', 'subBalanceType', 'unitType', 'allocated', 'remaining', 'rollover', 'rolloverCap', 'endCycle', 'alerted', 'firstCycle', 'purchased' }
-- bucketKind is stored as one letter: seven sub-balances are 42 bytes of a subscription's ~2 KB.
local KIND_CODE, KIND_NAME = { PRIMARY = 'P', ADDON = 'A' }, { P = 'PRIMARY', A = 'ADDON' }
local DATE_FIELDS = { 'validFrom', 'validUntil', 'purchasedUntil' }

-- The balances hash also carries the subscription's owner under OWNER_FIELD once it is ACTIVE: ACTIVE is
-- final and the owner never changes, so QueryBalances answers from this one hash — one HGETALL, atomic even
-- on a Cluster (balance-store.ts). The activation writes it; a change or renewal of a subscription activated
-- before it existed writes it too (keepOwnerMark), so every one has it within a bill cycle. Not digit-led:
-- no reader takes it for a sub-balance, and no outcome carries it (balanceRows).
local OWNER_FIELD = 'o'

-- The balances hash as this script holds it, so it is read once (loadBalances) and written once
-- (writeBalances): every field and value in HGETALL's order, kept in step by saveBalance and removeBalance,
-- whose writes wait in `sets` and `dels` (disjoint: the later of a set and a delete of a field wins) until
-- writeBalances sends them as one HSET and one HDEL. `loaded`: the fields are all the hash has.
-- This call's: the library holding these helpers outlives its calls, so every function starts with an empty one.
local hash
local function emptyHash()
  return { loaded = false, order = {}, known = {}, values = {}, sets = {}, setOrder = {}, dels = {}, delOrder = {} }
end
-- @on-call hash = emptyHash()

local function setField(field, value)
  if not hash.known[field] then
    hash.known[field] = true
    hash.order[#hash.order + 1] = field
  end
  hash.values[field] = value
  if hash.sets[field] == nil then hash.setOrder[#hash.setOrder + 1] = field end
  hash.sets[field], hash.dels[field] = value, nil
end

local function delField(field)
  if hash.loaded and hash.values[field] == nil and hash.sets[field] == nil then return end -- not there: nothing to delete
  hash.values[field], hash.sets[field] = nil, nil
  if not hash.dels[field] then
    hash.dels[field] = true
    hash.delOrder[#hash.delOrder + 1] = field
  end
end

-- Sends the pending writes: one HSET of every field set, one HDEL of every field removed.
local function writeBalances(balKey)
  local args = {}
  for _, field in ipairs(hash.setOrder) do
    if hash.sets[field] ~= nil then
      args[#args + 1] = field
      args[#args + 1] = hash.sets[field]
    end
  end
  if #args > 0 then redis.call('HSET', balKey, unpack(args)) end
  local gone = {}
  for _, field in ipairs(hash.delOrder) do
    if hash.dels[field] then gone[#gone + 1] = field end
  end
  if #gone > 0 then redis.call('HDEL', balKey, unpack(gone)) end
  hash.sets, hash.setOrder, hash.dels, hash.delOrder = {}, {}, {}, {}
end

-- Reads the balances hash into `hash` (for balanceRows and the writes) without decoding its rows.
local function readBalances(balKey)
  local flat = redis.call('HGETALL', balKey)
  hash.loaded, hash.order, hash.known, hash.values = true, {}, {}, {}
  for i = 1, #flat, 2 do
    hash.order[#hash.order + 1], hash.known[flat[i]], hash.values[flat[i]] = flat[i], true, flat[i + 1]
  end
  return flat
end

-- The hash's fields and values, as HGETALL would return them now (the writes sent): from memory once loaded.
local function balanceRows(balKey)
  if next(hash.sets) ~= nil or next(hash.dels) ~= nil then error('balance writes pending: call writeBalances first') end
  if not hash.loaded then readBalances(balKey) end
  local flat = {}
  for _, field in ipairs(hash.order) do
    local value = hash.values[field]
    if value ~= nil and field ~= OWNER_FIELD then
      flat[#flat + 1] = field
      flat[#flat + 1] = value
    end
  end
  return flat
end

-- One sub-balance from its main field's text and its dates field's (nil: none).
local function decodeBalance(gpsi, seq, text, dates)
  local b = { seq = seq, subBalanceInstId = gpsi .. '-' .. seq }
  for k, v in ipairs(split(text, '|')) do
    if v ~= '' then b[BALANCE_FIELDS[k]] = v end
  end
  b.bucketKind = KIND_NAME[b.bucketKind] or b.bucketKind
  for k, v in ipairs(dates and split(dates, '|') or {}) do
    if v ~= '' then b[DATE_FIELDS[k]] = v end
  end
  return b
end

-- Every sub-balance of the hash, decoded, in instance-number order.
local function loadBalances(balKey, gpsi)
  local flat = readBalances(balKey)
  local list = {}
  for i = 1, #flat, 2 do
    if string.match(flat[i], '^%d+$') then list[#list + 1] = decodeBalance(gpsi, flat[i], flat[i + 1], hash.values[flat[i] .. 'v']) end
  end
  table.sort(list, function(a, b) return tonumber(a.seq) < tonumber(b.seq) end)
  return list
end

-- The sub-balances a step names, decoded on first use from the hash readBalances read: an UpdateBalances
-- names one or two of a subscription's seven or more, and decoding them all was a third of its Redis time
-- (docs/benchmarks.md). lookup(id) answers the same table for the same id, nil when the id names none.
local function balanceLookup(gpsi)
  local decoded, prefix = {}, gpsi .. '-'
  return function(id)
    if type(id) ~= 'string' or string.sub(id, 1, #prefix) ~= prefix then return nil end
    local seq = string.sub(id, #prefix + 1)
    if not string.match(seq, '^%d+$') or not hash.values[seq] then return nil end
    decoded[seq] = decoded[seq] or decodeBalance(gpsi, seq, hash.values[seq], hash.values[seq .. 'v'])
    return decoded[seq]
  end
end

-- Records a sub-balance's fields (written by writeBalances). `fresh`: a new instance number, which has
-- no dates field to remove; otherwise one is removed when the sub-balance has no dates now.
local function saveBalance(b, fresh)
  local values = {}
  for k, field in ipairs(BALANCE_FIELDS) do values[k] = b[field] or '' end
  values[2] = KIND_CODE[b.bucketKind] or b.bucketKind
  if values[12] == '0' then values[12] = '' end
  while values[#values] == '' do values[#values] = nil end
  setField(b.seq, table.concat(values, '|'))
  local dates = { b.validFrom or '', b.validUntil or '', b.purchasedUntil or '' }
  while dates[#dates] == '' do dates[#dates] = nil end
  if #dates > 0 then setField(b.seq .. 'v', table.concat(dates, '|'))
  elseif not fresh then delField(b.seq .. 'v') end
end

-- Writes the owner mark of an ACTIVE subscription when the hash lacks it (with writeBalances' HSET).
local function keepOwnerMark(owner)
  if hash.values[OWNER_FIELD] ~= owner then setField(OWNER_FIELD, owner) end
end

local function amountsOf(b)
  return { remaining = b.remaining, allocated = b.allocated, rollover = b.rollover, purchased = b.purchased or '0' }
end

-- Usage thresholds, mirroring domain/balance/thresholds.ts: the most left once `percent` of the total is
-- used, floor(total * (100 - percent) / 100), on total = 100q + r so every value stays exact in a double.
local function remainingAtThreshold(total, percent)
  local left = 100 - percent
  local q = math.floor(total / 100)
  local r = total - q * 100
  return q * left + math.floor(r * left / 100)
end

-- Appends to `reached` the levels (ascending percents) a changed sub-balance newly reached this cycle and
-- keeps the highest in b.alerted, so each level is reported once per cycle (renewal clears it).
local function markThresholds(b, levels, reached)
  local total = tonumber(b.allocated) + tonumber(b.rollover)
  local remaining, alerted = tonumber(b.remaining), tonumber(b.alerted) or 0
  for _, percent in ipairs(levels or {}) do
    if percent > alerted and remaining <= remainingAtThreshold(total, percent) then
      reached[#reached + 1] = { subBalanceInstId = b.subBalanceInstId, bucketRefId = b.bucketRefId, subBalanceType = b.subBalanceType,
        unitType = b.unitType, percent = percent, amounts = amountsOf(b) }
      b.alerted = fmt(percent)
    end
  end
end

-- A change, with the sub-balance's validity and purchased credit end as they are after it (changeOf in arithmetic.ts).
local function change(kind, b, before, after, quantity)
  return { change = kind, subBalanceInstId = b.subBalanceInstId, bucketRefId = b.bucketRefId,
    subBalanceType = b.subBalanceType, unitType = b.unitType, quantity = quantity, before = before, after = after,
    validFrom = b.validFrom, validUntil = b.validUntil, purchasedUntil = b.purchasedUntil }
end

-- A new sub-balance from a seed (one allowance of a catalog bucket, computed by the caller), full at its
-- allocation; a dated bucket's seed brings its period (validFrom, validUntil: billing epoch ms).
-- New sub-balances from seeds (one allowance of a catalog bucket each, computed by the caller), full at
-- their allocation, numbered in order by one HINCRBY of the subscription's counter; a dated bucket's seed
-- brings its period (validFrom, validUntil: billing epoch ms). Appends their Created changes to `changes`.
local function instantiate(subKey, gpsi, seeds, changes)
  if #seeds == 0 then return end
  local first = redis.call('HINCRBY', subKey, 'seq', #seeds) - #seeds
  for i, seed in ipairs(seeds) do
    local seq = fmt(first + i)
    local b = { subBalanceInstId = gpsi .. '-' .. seq, seq = seq, bucketRefId = seed.bucketRefId, bucketKind = seed.bucketKind,
      subBalanceType = seed.subBalanceType, unitType = seed.unitType, allocated = seed.allocated, remaining = seed.allocated,
      rollover = '0', rolloverCap = seed.rolloverCap, endCycle = '0', validFrom = seed.validFrom, validUntil = seed.validUntil }
    local partial = seed.firstCycle
    if partial then
      b.firstCycle = (partial.rollover and 'r' or 'x') .. (partial.allocation ~= seed.allocated and partial.allocation or '')
    end
    saveBalance(b, true)
    changes[#changes + 1] = change('Created', b, nil, amountsOf(b), nil)
  end
end

-- Renewal of one sub-balance, mirroring renewAmounts (domain/balance/arithmetic.ts): purchased credit is
-- kept whole when its subBalanceType carries over (`carryOver`), else it lapses; the unused rest (the grant
-- left, and lapsing credit) rolls over up to the cap; ending a partial first cycle, the full allocation
-- returns and nothing rolls over unless its firstCycle token allows ('r').
local function renewBalance(b, carryOver)
  local purchased = carryOver and tonumber(b.purchased or '0') or 0
  local allocated, rollover = tonumber(b.allocated), math.min(tonumber(b.remaining) - purchased, tonumber(b.rolloverCap))
  if b.firstCycle then
    local full = string.sub(b.firstCycle, 2)
    if full ~= '' then allocated = tonumber(full) end
    if string.sub(b.firstCycle, 1, 1) ~= 'r' then rollover = 0 end
    b.firstCycle = nil
  end
  b.allocated, b.rollover, b.purchased, b.remaining = fmt(allocated), fmt(rollover), fmt(purchased), fmt(allocated + rollover + purchased)
  if purchased == 0 then b.purchasedUntil = nil end -- lapsed credit takes its end date with it
  b.alerted = nil -- a new cycle reports its thresholds afresh
end

local function removeBalance(b, kind)
  delField(b.seq)
  delField(b.seq .. 'v')
  return change(kind, b, amountsOf(b), nil, nil)
end

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
  for i, c in ipairs(changes) do encoded[i] = ledgerChange(c) end
  -- LPUSH answers the new length: trimmed only when it exceeds the retention.
  local length = redis.call('LPUSH', ledgerKey, ctx.at .. '|' .. ctx.operation .. '|' .. table.concat(encoded, ';') .. '|' .. ctx.correlationId)
  local retention = tonumber(ctx.retention)
  if retention > 0 and length > retention then redis.call('LTRIM', ledgerKey, 0, retention - 1) end
end

-- The recorded outcome of a command, returned as is when the command is delivered again; nil: none, go on.
-- ctx.fp, the command payload's fingerprint, is kept in the record (finish): the same command id with
-- another payload is a CONFLICT (records without one replay as before). ctx.refuseNew {code, message}:
-- no new change may be applied (the partner's idempotency quota is spent), so without a record that
-- error is the answer; a recorded change is still replayed. Neither writes anything.
-- `subKey`: given by the scripts whose records keep only some facts (commandRecord), whose replay answers
-- the subscription's facts as they are now beside it, for the rest.
local function replay(doneKey, ctx, subKey)
  local recorded = redis.call('GET', doneKey)
  local fp = ctx.fp ~= cjson.null and ctx.fp or nil
  if recorded then
    -- "fp": can only be the record's own top-level key (a quote inside a JSON string is escaped), so
    -- comparing the encoded value in place needs no decoding.
    local at = fp and string.find(recorded, '"fp":', 1, true)
    if at then
      local mine = '"fp":' .. cjson.encode(fp)
      local after = string.sub(recorded, at + #mine, at + #mine)
      if string.sub(recorded, at, at + #mine - 1) ~= mine or (after ~= ',' and after ~= '}') then
        return { cjson.encode({ error = { code = 'CONFLICT', message = 'X-Correlation-Id ' .. ctx.correlationId ..
          ' was already used for a different ' .. ctx.operation .. ' command' } }), 0 }
      end
    end
    if subKey then return { recorded, 1, subscriptionFacts(subKey) } end
    return { recorded, 1 }
  end
  if ctx.refuseNew and ctx.refuseNew ~= cjson.null then return { cjson.encode({ error = ctx.refuseNew }), 0 } end
  return nil
end

-- Records a command's outcome and answers it; `facts` (a commandRecord's: the subscription's as they are
-- now) go beside it, as replay gives them.
local function finish(doneKey, ctx, outcome, facts)
  if ctx.fp and ctx.fp ~= cjson.null then outcome.fp = ctx.fp end
  local encoded = cjson.encode(outcome)
  redis.call('SET', doneKey, encoded, 'EX', tonumber(ctx.ttl))
  return { encoded, 0, facts }
end

-- The outcome of a renewal or an expiry (no command: they go to the renewal outbox, not a 24 h record; a
-- command's is commandRecord). The balances it carries are the hash's own fields and values (balanceRows),
-- decoded by the worker (decodeBalanceRows in balance-outcome.ts); its changes in the ledger's positional
-- layout (changeRows, read by decodeLedgerChange in ledger-entry.ts). The three bulky parts go under
-- one-letter names: s (the facts, as they are after it), c (changeRows), b (balanceRows).
local function success(subKey, balKey, ctx, changes, extra)
  local outcome = { at = ctx.at, correlationId = ctx.correlationId, s = subscriptionFacts(subKey), c = {}, b = balanceRows(balKey) }
  for i, c in ipairs(changes) do outcome.c[i] = ledgerChange(c) end
  for k, v in pairs(extra or {}) do outcome[k] = v end
  return outcome
end

-- A hash row's fields as a reply shows them (saveBalance's layout): bucketRefId, |subBalanceType,
-- |allocated|remaining|rollover, and purchased (the 12th field; '' when absent) — one match per row.
local SHOWN_FIELDS = '^([^|]*)|[^|]*(|[^|]*)|[^|]*(|[^|]*|[^|]*|[^|]*)|[^|]*|[^|]*|?[^|]*|?[^|]*|?([^|]*)'

-- Every sub-balance of the hash as a command's reply shows it, in the hash's order, joined by ';' (the
-- catalog keeps '|' and ';' out of a bucketRefId):
--   seq|bucketRefId|subBalanceType|allocated|remaining|rollover[|purchased[|validFrom|validUntil|purchasedUntil]]
-- (the amounts without a whole unit's zeros: kiloZeros)
-- — without what only the service reads (bucketKind, rolloverCap, endCycle, alerted, firstCycle), nor the
-- unitType, which the catalog makes the subBalanceType's own (UNIT_BY_SUB_BALANCE_TYPE): 18 of a row's
-- ~60 bytes, in every 24 h record. The bucketRefId is left empty when the row before has it too (a
-- bucket's allowances are created together, so they are neighbours: 3 of WP-BASIC's 4 rows). Built in
-- pieces joined once: this runs for every change.
local function replyRows(balKey)
  if next(hash.sets) ~= nil or next(hash.dels) ~= nil then error('balance writes pending: call writeBalances first') end
  if not hash.loaded then readBalances(balKey) end
  local dated = {}
  for _, field in ipairs(hash.order) do
    if string.byte(field, -1) == 118 and hash.values[field] then dated[string.sub(field, 1, -2)] = hash.values[field] end -- <seq>v
  end
  local pieces, n, previous = {}, 0, nil
  for _, seq in ipairs(hash.order) do
    local value, last = hash.values[seq], string.byte(seq, -1)
    if value ~= nil and last >= 48 and last <= 57 then -- a sub-balance's own field: digits only
      local bucket, subBalanceType, amounts, purchased = string.match(value, SHOWN_FIELDS)
      pieces[n + 1], pieces[n + 2], pieces[n + 3], pieces[n + 4], pieces[n + 5] = seq, '|', bucket == previous and '' or bucket, subBalanceType, kiloZeros(amounts, '|')
      n = n + 5
      local dates = dated[seq]
      if dates then
        pieces[n + 1], pieces[n + 2], pieces[n + 3], pieces[n + 4] = '|', kiloZeros(purchased, '|'), '|', dates
        n = n + 4
      elseif purchased ~= '' then
        pieces[n + 1], pieces[n + 2] = '|', kiloZeros(purchased, '|')
        n = n + 2
      end
      pieces[n + 1] = ';'
      n = n + 1
      previous = bucket
    end
  end
  pieces[n] = nil -- the last ';'
  return table.concat(pieces)
end

-- The record of a balance command (AddBuckets, CancelBuckets, SwapPrimaryBucket, UpdateBalances), read by
-- decodeOutcome in balance-outcome.ts. Its reply and events are rebuilt from it alone, so it keeps only
-- what they show (a 24 h record per change: the largest part of Redis memory per command):
--   t = its time (epoch ms: ctx.atMs); f = the facts its events name: subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId
--   (and cycleNo, cycleStart when it reached thresholds); c = changeRows (a shown sub-balance's named by
--   its row); r = replyRows; the extras.
-- The service reads the rest of the facts (time zone, next renewal) from what the script answers beside it:
-- the subscription's facts as they are now (finish, replay); and the command's correlationId and commandId
-- from the command itself, whose id names the record. `facts`: this script's, after the change.
local function commandRecord(balKey, ctx, changes, extra, facts)
  local record = { t = ctx.atMs, f = { facts[2], facts[3], facts[4], facts[5] }, c = {}, r = replyRows(balKey) }
  for i, c in ipairs(changes) do record.c[i] = ledgerChange(c, hash.values) end
  for k, v in pairs(extra or {}) do record[k] = v end
  if record.thresholds and next(record.thresholds) == nil then record.thresholds = nil end
  if record.thresholds then record.f[5], record.f[6] = facts[10], facts[11] end
  return record
end
