-- Claims up to `limit` subscriptions due for renewal: each one's score moves to the lease end, so another
-- scheduler instance does not take it meanwhile; if the claimer dies, it is due again when the lease ends.
-- KEYS: due set (score = real epoch ms of the next renewal)   ARGV: now ms, lease end ms, limit
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
