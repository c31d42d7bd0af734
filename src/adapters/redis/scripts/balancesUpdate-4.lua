-- UpdateBalances, all or nothing: every action is checked in order against the sub-balances (as changed by
-- the earlier actions), every problem is listed, and with any problem (or problems the caller already
-- found in the actions' own fields) nothing is written. Mirrors evaluateUpdate in test/support/balance-model.ts
-- (an Add is purchased credit, kept apart in `purchased`; a Subtract draws on the grant first);
-- the changed sub-balances then report the usage thresholds they reached (markThresholds, thresholds.ts), in
-- the recorded outcome, so a BalanceThresholdReached comes from the same step as the change, once.
-- KEYS: subscription, balances, ledger, done(commandId)
-- ARGV: context JSON, {actions, problems, thresholds: {bucketRefId: [percent...]}, purchasedUntil: {subBalanceType: ms}} JSON
--       (purchasedUntil: the end a top-up made now gives purchased credit, for the types whose credit expires)
-- @include balance

-- Mirrors purchasedUntilAfterTopUp (domain/balance/validity.ts): a top-up lasting until `ending` (nil: no
-- end) moves the credit's end to the later of the two; credit without an end keeps having none.
local function purchasedUntilAfterTopUp(b, ending)
  local held = tonumber(b.purchased or '0') > 0 and (tonumber(b.purchasedUntil) or math.huge) or -math.huge
  local until_ = math.max(held, tonumber(ending) or math.huge)
  if until_ == math.huge then return nil end
  return fmt(until_)
end
local ctx = cjson.decode(ARGV[1])
local recorded = replay(KEYS[4], ctx, KEYS[1])
if recorded then return recorded end
local payload = cjson.decode(ARGV[2])
local problems = payload.problems
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ctx.gpsi, ctx.visible)
if refused then
  -- A command that is malformed anyway is answered as such, whoever owns the number.
  if #problems > 0 then refused = { code = 'BAD_REQUEST', message = 'The command is invalid', problems = problems } end
  return finish(KEYS[4], ctx, { error = refused })
end
local elsewhere = wrongZone(facts, ctx)
if elsewhere then return elsewhere end

readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
local balanceById = balanceLookup(ctx.gpsi)
local changes, touched = {}, {}
for i, a in ipairs(payload.actions) do
  local at = 'balances[' .. (i - 1) .. ']'
  local b = a ~= cjson.null and balanceById(a.subBalanceInstId) or nil
  if a ~= cjson.null and not b then
    problems[#problems + 1] = { path = at .. '.subBalanceInstId', reason = 'names no sub-balance of this subscription' }
  elseif b then
    local fits = true
    if a.subBalanceType ~= b.subBalanceType then
      problems[#problems + 1] = { path = at .. '.subBalanceType', reason = 'must be ' .. b.subBalanceType .. ' for this sub-balance' }
      fits = false
    end
    if a.unitType ~= b.unitType then
      problems[#problems + 1] = { path = at .. '.unitType', reason = 'must be ' .. b.unitType .. ' for this sub-balance' }
      fits = false
    end
    if fits and a.action ~= cjson.null and a.quantity ~= cjson.null then
      local remaining, quantity = tonumber(b.remaining), tonumber(a.quantity)
      local after = a.action == 'Subtract' and remaining - quantity or remaining + quantity
      local held = tonumber(hash.values[b.seq .. 'r'] or '0') -- reserved (6-reservations.lua): not for a Subtract to take
      if after < 0 then
        problems[#problems + 1] = { path = at .. '.quantity', reason = 'would take the remaining balance below zero (remaining ' .. units(remaining) .. ')' }
      elseif a.action == 'Subtract' and after < held then
        problems[#problems + 1] = { path = at .. '.quantity', reason = 'would take the remaining balance below what is reserved (remaining ' .. units(remaining) .. ', reserved ' .. units(held) .. ')' }
      elseif after > MAX_MILLI then
        problems[#problems + 1] = { path = at .. '.quantity', reason = 'would take the remaining balance above ' .. units(MAX_MILLI) }
      else
        -- Mirrors applyQuantity: an Add is purchased credit; usage draws on the grant first, then on it.
        local before, purchased = amountsOf(b), tonumber(b.purchased or '0')
        if a.action == 'Subtract' then
          purchased = purchased - math.max(0, quantity - (remaining - purchased))
        else
          b.purchasedUntil = purchasedUntilAfterTopUp(b, (payload.purchasedUntil or {})[b.subBalanceType])
          purchased = purchased + quantity
        end
        if purchased == 0 then b.purchasedUntil = nil end
        b.remaining, b.purchased = fmt(after), fmt(purchased)
        touched[b.subBalanceInstId] = b
        changes[#changes + 1] = change(a.action, b, before, amountsOf(b), a.quantity)
      end
    end
  end
end
if #problems > 0 then
  return finish(KEYS[4], ctx, { error = { code = 'BAD_REQUEST', message = 'The command is invalid', problems = problems } })
end

-- In instance-number order, as the thresholds reached are reported.
local changed = {}
for _, b in pairs(touched) do changed[#changed + 1] = b end
table.sort(changed, function(x, y) return tonumber(x.seq) < tonumber(y.seq) end)
local reached = {}
for _, b in ipairs(changed) do
  markThresholds(b, payload.thresholds[b.bucketRefId], reached)
  saveBalance(b)
end
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes, { thresholds = reached }, facts), facts)
