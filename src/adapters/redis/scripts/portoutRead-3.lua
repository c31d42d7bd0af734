--[[
  What a port-out change starts from, in one step: the outcome recorded for its cause (a replay answers
  it), the number's current port-out (JSON) and its subscription's status, owner and subscriber.
  KEYS[1] the number's port-out (string)   KEYS[2] the outcome of this cause (string)
  KEYS[3] the number's subscription (hash)
  Returns {recorded outcome or false, port-out JSON or false, {status, wholesaleCustomerId, subscriberId}}.
]]
return {
  redis.call('GET', KEYS[2]),
  redis.call('GET', KEYS[1]),
  redis.call('HMGET', KEYS[3], 'status', 'wholesaleCustomerId', 'subscriberId'),
}
