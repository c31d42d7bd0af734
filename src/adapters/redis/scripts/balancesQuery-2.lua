-- QueryBalances: the sub-balances of an active subscription of the caller, read in one atomic step.
-- KEYS: subscription, balances   ARGV: gpsi, visible customers (JSON array)
-- Returns { facts (FACT_FIELDS order, nil = absent), the balances hash's fields and values } as Redis
-- arrays, so nothing is encoded here or parsed in the worker; a refusal is its JSON text ({ error }).
-- @flags no-writes
-- @include balance
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ARGV[1], cjson.decode(ARGV[2]))
if refused then return cjson.encode({ error = refused }) end
return { facts, redis.call('HGETALL', KEYS[2]) }
