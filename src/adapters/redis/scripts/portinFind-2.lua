--[[
  Reads one port-in request of a number by its id, from the current request or the number's history, in
  one step so a request moving to the history meanwhile is not missed.
  KEYS[1] the number's current request (hash)   KEYS[2] the number's history (hash: requestId -> JSON)
  ARGV[1] requestId
  Returns {'hash', flat fields} | {'json', archived request} | {'none'}.
]]
-- @flags no-writes
local id = redis.call('HGET', KEYS[1], 'requestId')
if id == ARGV[1] then return {'hash', redis.call('HGETALL', KEYS[1])} end
local archived = redis.call('HGET', KEYS[2], ARGV[1])
if archived then return {'json', archived} end
return {'none'}
