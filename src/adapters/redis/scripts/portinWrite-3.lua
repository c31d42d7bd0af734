--[[
  Writes one change of a number's port-in request, atomically, and records the cause's outcome with it.
  KEYS[1] the number's current request (hash)    KEYS[2] the number's history (hash: requestId -> JSON)
  KEYS[3] the outcome of this cause (string, TTL)
  ARGV[1] expected requestId ('' = the number has no request)   ARGV[2] expected portOrderVersion
  ARGV[3] expected portStatus   ARGV[4] mode: update | replace   ARGV[5] fields to set (JSON object)
  ARGV[6] fields to delete (JSON array)   ARGV[7] outcome (JSON)   ARGV[8] outcome TTL in seconds
  Returns {'replayed', outcome} when this cause was already handled, {'stale'} when the request changed
  since it was read (the caller re-reads and re-plans), else {'written', outcome}.
]]
local recorded = redis.call('GET', KEYS[3])
if recorded then return {'replayed', recorded} end

local current = redis.call('HMGET', KEYS[1], 'requestId', 'portOrderVersion', 'portStatus')
local requestId = current[1] or ''
if requestId ~= ARGV[1] then return {'stale'} end
if requestId ~= '' and (current[2] ~= ARGV[2] or current[3] ~= ARGV[3]) then return {'stale'} end

local mode = ARGV[4]
if mode == 'replace' and requestId ~= '' then
  local flat = redis.call('HGETALL', KEYS[1])
  local finished = {}
  for i = 1, #flat, 2 do finished[flat[i]] = flat[i + 1] end
  redis.call('HSET', KEYS[2], requestId, cjson.encode(finished))
  redis.call('DEL', KEYS[1])
end
local fields = {}
for field, value in pairs(cjson.decode(ARGV[5])) do
  fields[#fields + 1] = field
  fields[#fields + 1] = value
end
redis.call('HSET', KEYS[1], unpack(fields))
local gone = cjson.decode(ARGV[6])
if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
redis.call('SET', KEYS[3], ARGV[7], 'EX', tonumber(ARGV[8]))
return {'written', ARGV[7]}
