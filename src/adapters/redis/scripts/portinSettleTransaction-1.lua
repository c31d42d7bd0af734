--[[
  Marks a claimed partner transaction finished, keeping the reply a retry with the same payload gets.
  KEYS[1] the transaction (hash)   ARGV[1] commandId of the claim   ARGV[2] reply (JSON)
  Returns 1 when settled (or already settled), 0 when another command holds the claim.
]]
local t = redis.call('HMGET', KEYS[1], 'commandId', 'state')
if t[1] ~= ARGV[1] then return 0 end
if t[2] ~= 'settled' then redis.call('HSET', KEYS[1], 'state', 'settled', 'reply', ARGV[2]) end
return 1
