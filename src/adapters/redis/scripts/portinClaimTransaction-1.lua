--[[
  Claims a partner transaction (wholesale customer + partnerTransactionId) for a CreatePortIn, before the
  request is written, so the id stays unique per customer.
  KEYS[1] the transaction (hash)
  ARGV[1] commandId   ARGV[2] payload fingerprint   ARGV[3] gpsi   ARGV[4] requestId the command would create
  ARGV[5] now (ms)   ARGV[6] lease (ms): how long an unfinished claim of another command is respected
  Returns {'claimed', requestId} | {'duplicate', reply JSON} | {'mismatch'} | {'busy'}.
  The same command (a redelivery) always goes on, even after it settled, so it can finish publishing.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'commandId', ARGV[1], 'payloadHash', ARGV[2], 'gpsi', ARGV[3],
    'requestId', ARGV[4], 'state', 'claimed', 'claimedAt', ARGV[5])
  return {'claimed', ARGV[4]}
end
local t = redis.call('HMGET', KEYS[1], 'commandId', 'payloadHash', 'requestId', 'state', 'claimedAt', 'reply')
if t[2] ~= ARGV[2] then return {'mismatch'} end
if t[1] == ARGV[1] then return {'claimed', t[3]} end
if t[4] == 'settled' then return {'duplicate', t[6]} end
if tonumber(ARGV[5]) - tonumber(t[5]) < tonumber(ARGV[6]) then return {'busy'} end
-- the first command gave up without finishing: this retry takes its claim over, and its request id
redis.call('HSET', KEYS[1], 'commandId', ARGV[1], 'claimedAt', ARGV[5])
return {'claimed', t[3]}
