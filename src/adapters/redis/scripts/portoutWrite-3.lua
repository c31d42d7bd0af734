--[[
  Writes one change of a number's port-out, atomically, and records the cause's outcome with it.
  KEYS[1] the number's port-out (string, JSON)   KEYS[2] its history (hash: portOutId -> JSON)
  KEYS[3] the outcome of this cause (string, TTL)
  ARGV[1] expected portOutId ('' = the number has no port-out)   ARGV[2] expected status
  ARGV[3] the next port-out (JSON)   ARGV[4] its portOutId   ARGV[5] outcome (JSON)   ARGV[6] outcome TTL (s)
  Returns {'replayed', outcome} when this cause was handled already, {'stale'} when the port-out changed
  since it was read (the caller reads and plans again), else {'written', outcome}. A new port-out moves the
  finished one to the history.
]]
local recorded = redis.call('GET', KEYS[3])
if recorded then return {'replayed', recorded} end

local current = redis.call('GET', KEYS[1])
local id, status = '', ''
if current then
  local decoded = cjson.decode(current)
  id, status = decoded.portOutId, decoded.status
end
if id ~= ARGV[1] or (id ~= '' and status ~= ARGV[2]) then return {'stale'} end
if id ~= '' and id ~= ARGV[4] then redis.call('HSET', KEYS[2], id, current) end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[3], ARGV[5], 'EX', tonumber(ARGV[6]))
return {'written', ARGV[5]}
