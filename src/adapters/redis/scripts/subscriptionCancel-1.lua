-- cancel: PENDING -> CANCELLED (a cancelled port). The cancellation's time, reason, cause and correlation
-- id are kept in short fields of the subscription (not the whole outcome, so the hash stays small), and
-- cancelling again rebuilds the same outcome from them: a cancelled subscription does not change until a
-- new one replaces it. An ACTIVE subscription is left alone (a completed port is no longer cancellable):
-- returns { '', 0 }.
-- KEYS: subscription   ARGV: context JSON {gpsi, at, reason, causeId, correlationId}
-- Returns { outcome JSON, replayed 0|1 }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
local s = redis.call('HMGET', KEYS[1], 'status', 'cancelledAt', 'cancelReason', 'cancelCauseId', 'cancelCorrelationId')
local function outcome(at, reason, causeId, correlationId)
  return cjson.encode({ at = at, correlationId = correlationId, causeId = causeId, reason = reason,
    subscription = subscriptionFacts(KEYS[1]), changes = {} })
end
if s[1] == 'CANCELLED' then
  return { outcome(s[2] or ctx.at, s[3] or ctx.reason, s[4] or ctx.causeId, s[5] or ctx.correlationId), 1 }
end
if s[1] ~= 'PENDING' then return { '', 0 } end
redis.call('HSET', KEYS[1], 'status', 'CANCELLED', 'cancelledAt', ctx.at, 'cancelReason', ctx.reason, 'cancelCauseId', ctx.causeId,
  'cancelCorrelationId', ctx.correlationId)
return { outcome(ctx.at, ctx.reason, ctx.causeId, ctx.correlationId), 0 }
