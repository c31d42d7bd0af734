-- The balances hash: its rows' stored format, read once and written once per call.
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
  if #args > 0 then
    if hash.values[FORMAT_FIELD] ~= FORMAT_TEXT then -- the rows' format, once per hash
      args[#args + 1], args[#args + 2] = FORMAT_FIELD, FORMAT_TEXT
      hash.values[FORMAT_FIELD] = FORMAT_TEXT
      if not hash.known[FORMAT_FIELD] then hash.known[FORMAT_FIELD], hash.order[#hash.order + 1] = true, FORMAT_FIELD end
    end
    redis.call('HSET', balKey, unpack(args))
  end
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
  readableFormat(hash.values[FORMAT_FIELD], 'balances hash')
  return flat
end

-- The hash's fields and values, as HGETALL would return them now (the writes sent): from memory once loaded.
local function balanceRows(balKey)
  if next(hash.sets) ~= nil or next(hash.dels) ~= nil then error('balance writes pending: call writeBalances first') end
  if not hash.loaded then readBalances(balKey) end
  local flat = {}
  for _, field in ipairs(hash.order) do
    local value = hash.values[field]
    if value ~= nil and field ~= OWNER_FIELD and field ~= FORMAT_FIELD then
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
