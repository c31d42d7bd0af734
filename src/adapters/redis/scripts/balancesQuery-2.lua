-- QueryBalances: the sub-balances of an active subscription of the caller, read in one atomic step.
-- KEYS: subscription, balances   ARGV: gpsi, visible customers (JSON array)
-- @flags no-writes
-- @include balance
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ARGV[1], cjson.decode(ARGV[2]))
if refused then return cjson.encode({ error = refused }) end
return cjson.encode({ subscription = facts, balanceRows = redis.call('HGETALL', KEYS[2]) })
