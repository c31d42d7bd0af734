-- ReleaseReservation: ends a held reservation without use; the amounts stay, only the hold goes.
-- KEYS: subscription, balances, ledger, done(commandId), reservations
-- ARGV: context JSON, {reservationId} JSON
-- @include balance
local answer, ctx, p, facts = commandStart(KEYS, ARGV)
if answer then return answer end
local function invalid(code, path, reason) return fieldRefusal(KEYS[4], ctx, code, path, reason) end
local r = reservationRead(KEYS[5], p.reservationId)
if not r then return invalid('NOT_FOUND', 'reservationId', 'names no held reservation (committed, released, expired or never made)') end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
setReserved(r.seq, releaseAmounts(reservedOf(r.seq), r.amount))
writeBalances(KEYS[2])
redis.call('HDEL', KEYS[5], r.id)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, {}, { res = reservationFacts(r) }, facts), facts)
