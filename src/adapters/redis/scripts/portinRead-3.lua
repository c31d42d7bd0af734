--[[
  What a change of a number's port-in request starts from, in one step: the outcome recorded for its cause
  (a replay answers it), the number's current request (the plan's input) and its subscription's status
  (a CreatePortIn's eligibility).
  KEYS[1] the number's current request (hash)   KEYS[2] the outcome of this cause (string, TTL)
  KEYS[3] the number's subscription (hash)
  Returns {recorded outcome or false, flat fields of the current request, subscription status or false}.
]]
-- @flags no-writes
return {
  redis.call('GET', KEYS[2]),
  redis.call('HGETALL', KEYS[1]),
  redis.call('HGET', KEYS[3], 'status'),
}
