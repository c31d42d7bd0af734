--[[
  Replaces a port order if its stored version is still the expected one (compare-and-set).
  KEYS[1] the order (string, JSON with its format `v` and `version`)
  ARGV[1] the expected version   ARGV[2] the next order (JSON)
  Returns 1 when written, 0 when the order is missing or another write came first.
]]
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if tostring(cjson.decode(current).version) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
