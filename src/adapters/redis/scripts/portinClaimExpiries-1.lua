--[[
  Takes the due members of the expiry schedule, leasing each (its score moves to now + lease) so another
  sweeper skips it; a sweeper that dies leaves it to be taken again when the lease ends.
  KEYS[1] the schedule (sorted set: member -> deadline ms)   ARGV[1] now (ms)   ARGV[2] lease (ms)   ARGV[3] limit
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local leasedUntil = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', leasedUntil, member) end
return due
