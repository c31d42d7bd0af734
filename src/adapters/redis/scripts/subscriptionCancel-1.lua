-- cancel: PENDING -> CANCELLED (a cancelled port). The outcome is kept so cancelling again returns it.
-- An ACTIVE subscription is left alone (a completed port is no longer cancellable): returns { '', 0 }.
-- KEYS: subscription   ARGV: context JSON {gpsi, at, reason, causeId, correlationId}
-- @include balance
local s = redis.call('HMGET', KEYS[1], 'status', 'cancellation')
if s[1] == 'CANCELLED' then return { s[2], 1 } end
if s[1] ~= 'PENDING' then return { '', 0 } end
local ctx = cjson.decode(ARGV[1])
redis.call('HSET', KEYS[1], 'status', 'CANCELLED', 'cancelledAt', ctx.at)
local outcome = { at = ctx.at, correlationId = ctx.correlationId, causeId = ctx.causeId, reason = ctx.reason,
  subscription = subscriptionFacts(KEYS[1]), changes = {} }
local encoded = cjson.encode(outcome)
redis.call('HSET', KEYS[1], 'cancellation', encoded)
return { encoded, 0 }
