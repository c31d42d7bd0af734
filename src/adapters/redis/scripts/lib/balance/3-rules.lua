-- The balance rules applied to decoded sub-balances (the rules of src/domain/balance/arithmetic.ts and thresholds.ts).
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
  delField(b.seq .. 'r') -- what reservations held on it goes with it
  return change(kind, b, amountsOf(b), nil, nil)
end
