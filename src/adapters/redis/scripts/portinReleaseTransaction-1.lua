--[[
  Gives up an unfinished claim of a partner transaction (the CreatePortIn was refused before writing).
  KEYS[1] the transaction (hash)   ARGV[1] commandId of the claim
  Returns 1 when released, 0 when the claim is another command's or already settled.
]]
local t = redis.call('HMGET', KEYS[1], 'commandId', 'state')
if t[1] ~= ARGV[1] or t[2] ~= 'claimed' then return 0 end
redis.call('DEL', KEYS[1])
return 1
