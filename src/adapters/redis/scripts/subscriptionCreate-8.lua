-- createPending: a PENDING subscription for a number that has none (or only a cancelled or ported-out
-- one), once per command. Returns '1' when created, '0' when the number already has a live subscription.
-- A ported-out subscription's hash and ledger are kept first under its subscriptionId in the number's
-- ended subscriptions (read by QueryBalanceHistory with that subscriptionId): the number ports back in,
-- the partner that had it keeps its history, the new subscription starts with none. The ledger is
-- renamed, not copied (O(1) whatever its retention), to a key named by this command, which the ended
-- subscription's JSON names (endedLedgerOf). Reservations it still held are dropped, as their expiry
-- drops those of a subscription no longer ACTIVE: they must not reach into the new one's balances.
-- KEYS: subscription, balances, ledger, renewal outbox, done(commandId), ended subscriptions (hash:
-- subscriptionId -> JSON of its hash), the ended ledger's new key (list), reservations (hash)
-- ARGV: fields JSON, ttl seconds, commandId
local recorded = redis.call('GET', KEYS[5])
if recorded then return recorded end
local status = redis.call('HGET', KEYS[1], 'status')
local created = '0'
if not status or status == 'CANCELLED' or status == 'PORTED_OUT' then
  if status == 'PORTED_OUT' then
    local flat = redis.call('HGETALL', KEYS[1])
    local ended = {}
    for i = 1, #flat, 2 do ended[flat[i]] = flat[i + 1] end
    local id = ended.subscriptionId or ('ported-out-' .. (ended.portOutId or ''))
    ended.endedLedgerOf = ARGV[3]
    redis.call('HSET', KEYS[6], id, cjson.encode(ended))
    if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('RENAME', KEYS[3], KEYS[7]) end
    redis.call('DEL', KEYS[8])
  end
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
