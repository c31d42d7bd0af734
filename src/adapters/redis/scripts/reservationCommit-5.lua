-- CommitReservation: ends a held reservation, taking the amount used (at most the amount held) from the
-- sub-balance as usage (the grant first, then purchased credit: commitAmounts); the rest is released. The
-- usage goes to the ledger (a Subtract of operation CommitReservation) and reports usage thresholds reached,
-- as UpdateBalances does.
-- KEYS: subscription, balances, ledger, done(commandId), reservations
-- ARGV: context JSON, {reservationId, used, thresholds: {bucketRefId: [percent...]}} JSON
-- @include balance
local answer, ctx, p, facts = commandStart(KEYS, ARGV)
if answer then return answer end
local function invalid(code, path, reason) return fieldRefusal(KEYS[4], ctx, code, path, reason) end
local r = reservationRead(KEYS[5], p.reservationId)
if not r then return invalid('NOT_FOUND', 'reservationId', 'names no held reservation (committed, released, expired or never made)') end
local used = tonumber(p.used)
if used > r.amount then
  return invalid('BAD_REQUEST', 'usedAmount', 'exceeds the reserved amount (used ' .. units(used) .. ', reserved ' .. units(r.amount) .. ')')
end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
local b = balanceLookup(ctx.gpsi)(ctx.gpsi .. '-' .. r.seq)
redis.call('HDEL', KEYS[5], r.id)
if not b then
  -- its bucket was cancelled meanwhile: nothing left to charge
  setReserved(r.seq, 0)
  writeBalances(KEYS[2])
  return invalid('CONFLICT', 'reservationId', 'holds part of a sub-balance that no longer exists; released')
end
local before = amountsOf(b)
local remaining, purchased, reserved, charged = commitAmounts(tonumber(b.remaining), tonumber(b.purchased or '0'), reservedOf(b.seq), r.amount, used)
setReserved(b.seq, reserved)
local changes, reached = {}, {}
if charged > 0 then
  b.remaining, b.purchased = fmt(remaining), fmt(purchased)
  if purchased == 0 then b.purchasedUntil = nil end
  changes[1] = change('Subtract', b, before, amountsOf(b), fmt(charged))
  markThresholds(b, (p.thresholds or {})[b.bucketRefId], reached)
  saveBalance(b)
end
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, changes, { res = reservationFacts(r, used, charged), thresholds = reached }, facts), facts)
