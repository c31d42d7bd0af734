-- PortInEligibility: what CheckPortInEligibility needs of a number, read in one step (one round trip
-- instead of two): its subscription's status and its current port-in request.
-- KEYS: subscription (hash), current port-in request (hash) — the number's {gpsi} tag
-- Returns { status or false, the request's fields and values (HGETALL; empty when none) }
-- @flags no-writes
return { redis.call('HGET', KEYS[1], 'status'), redis.call('HGETALL', KEYS[2]) }
