-- ReleaseReservation: ends a held reservation without use; the amounts stay, only the hold goes.
-- KEYS: subscription, balances, ledger, done(commandId), reservations
-- ARGV: context JSON, {reservationId} JSON
-- @include balance
local ctx = cjson.decode(ARGV[1])
local recorded = replay(KEYS[4], ctx, KEYS[1])
if recorded then return recorded end
local p = cjson.decode(ARGV[2])
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ctx.gpsi, ctx.visible)
if refused then return finish(KEYS[4], ctx, { error = refused }) end
local r = reservationRead(KEYS[5], p.reservationId)
if not r then
  local reason = 'names no held reservation (committed, released, expired or never made)'
  return finish(KEYS[4], ctx, { error = { code = 'NOT_FOUND', message = 'The command is invalid: reservationId ' .. reason, problems = { { path = 'reservationId', reason = reason } } } })
end
readBalances(KEYS[2])
keepOwnerMark(facts[FACT_CUSTOMER])
setReserved(r.seq, releaseAmounts(reservedOf(r.seq), r.amount))
writeBalances(KEYS[2])
redis.call('HDEL', KEYS[5], r.id)
return finish(KEYS[4], ctx, commandRecord(KEYS[2], ctx, {}, { res = reservationFacts(r) }, facts), facts)
