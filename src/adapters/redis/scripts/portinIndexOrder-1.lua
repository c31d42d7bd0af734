--[[
  Indexes an NP portOrderId to its request, once.
  KEYS[1] the port order (string)   ARGV[1] the request reference (JSON)
  Returns 1 when the id now names this request (new or repeated), 0 when it already names another one.
]]
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
if held == ARGV[1] then return 1 end
return 0
