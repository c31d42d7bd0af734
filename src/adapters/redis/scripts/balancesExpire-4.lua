-- Expiry at a validity end, once: removes the dated sub-balances whose validity ended by the cutoff
-- (Expired, with what they had) and takes purchased credit whose end came off the sub-balances that stay
-- (CreditExpired), mirroring expireDue (domain/balance/renewal.ts). Several schedulers may race: what one
-- expired is gone for the others, which find nothing to do. The outcome goes to the subscription's outbox
-- (as a renewal's does) for the BalancesExpired event.
-- KEYS: subscription, balances, ledger, outbox
-- ARGV: context JSON {gpsi, at, cutoff (billing epoch ms), expiredAt (the cutoff, ISO), correlationId, operation, retention}
-- Returns { outcome JSON or '', 'expired' | 'inactive' | 'nothing' }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
if redis.call('HGET', KEYS[1], 'status') ~= 'ACTIVE' then return { '', 'inactive' } end

local cutoff = tonumber(ctx.cutoff)
local changes = {}
for _, b in ipairs(loadBalances(KEYS[2], ctx.gpsi)) do
  if b.validUntil and tonumber(b.validUntil) <= cutoff then
    changes[#changes + 1] = removeBalance(b, 'Expired')
  elseif b.purchasedUntil and tonumber(b.purchasedUntil) <= cutoff then
    local before, credit = amountsOf(b), b.purchased or '0'
    b.remaining, b.purchased, b.purchasedUntil = fmt(tonumber(b.remaining) - tonumber(credit)), '0', nil
    saveBalance(b)
    changes[#changes + 1] = change('CreditExpired', b, before, amountsOf(b), credit)
  end
end
if #changes == 0 then return { '', 'nothing' } end
writeBalances(KEYS[2])
appendLedger(KEYS[3], ctx, changes)
local encoded = cjson.encode(success(KEYS[1], KEYS[2], ctx, changes, { expiredAt = ctx.expiredAt }))
redis.call('RPUSH', KEYS[4], encoded)
return { encoded, 'expired' }
