-- After an expiry pass: puts a claimed subscription back in the reservation due-set at its next expiry, or
-- takes it out when none is left. A reservation made since the claim lowered the entry (ZADD LT) below the
-- lease: then the earlier of the two stays.
-- KEYS: reservation due-set   ARGV: gpsi, the lease score it was claimed with, next expiry ('' = none)
local current = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
local claimed, nextAt = tonumber(ARGV[2]), tonumber(ARGV[3])
if current == nil or current == claimed then
  if nextAt then redis.call('ZADD', KEYS[1], nextAt, ARGV[1]) elseif current then redis.call('ZREM', KEYS[1], ARGV[1]) end
elseif nextAt then
  redis.call('ZADD', KEYS[1], 'LT', nextAt, ARGV[1])
end
return 1
