-- createPending: a PENDING subscription for a number that has none (or only a cancelled one), once per
-- command. Returns '1' when created, '0' when the number already has a live subscription.
-- KEYS: subscription, balances, ledger, renewal outbox, done(commandId)   ARGV: fields JSON, ttl seconds
local recorded = redis.call('GET', KEYS[5])
if recorded then return recorded end
local status = redis.call('HGET', KEYS[1], 'status')
local created = '0'
if not status or status == 'CANCELLED' then
  -- The instance counter survives, so sub-balance ids are never reused for one number.
  local seq = redis.call('HGET', KEYS[1], 'seq') or '0'
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  local args = { 'status', 'PENDING', 'seq', seq }
  for field, value in pairs(cjson.decode(ARGV[1])) do
    args[#args + 1] = field
    args[#args + 1] = value
  end
  redis.call('HSET', KEYS[1], unpack(args))
  created = '1'
end
redis.call('SET', KEYS[5], created, 'EX', tonumber(ARGV[2]))
return created
