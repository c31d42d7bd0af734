-- ReserveBalance: holds `amount` of one sub-balance for `ttlMs`, refused when more than is available
-- (remaining − reserved). Recorded under the command id like every change (replay, CONFLICT).
-- The end is Redis's TIME + ttlMs, not the worker's clock: the expiry scheduler compares it with Redis's
-- TIME too, so every worker measures it on the same clock and a worker's skew cannot move it.
-- KEYS: subscription, balances, ledger, done(commandId), reservations
-- ARGV: context JSON, {reservationId, subBalanceInstId, amount, ttlMs} JSON
-- @include balance
local answer, ctx, p, facts = commandStart(KEYS, ARGV)
if answer then return answer end
local function invalid(code, path, reason) return fieldRefusal(KEYS[4], ctx, code, path, reason) end
if reservationRead(KEYS[5], p.reservationId) then return invalid('CONFLICT', 'reservationId', 'names a reservation already held') end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
local b = balanceLookup(ctx.gpsi)(p.subBalanceInstId)
if not b then return invalid('BAD_REQUEST', 'subBalanceInstId', 'names no sub-balance of this subscription') end
local amount = tonumber(p.amount)
local reserved, reason = reserveAmounts(tonumber(b.remaining), reservedOf(b.seq), amount)
if not reserved then return invalid('BAD_REQUEST', 'amount', reason) end
setReserved(b.seq, reserved)
writeBalances(KEYS[2])
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local r = { id = p.reservationId, seq = b.seq, amount = amount, expiresAt = nowMs + tonumber(p.ttlMs) }
reservationWrite(KEYS[5], r)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, {}, { res = reservationFacts(r) }, facts), facts)
