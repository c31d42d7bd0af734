-- QueryBalanceHistory: the newest `limit` ledger entries (operations) of an active (or ported-out) subscription
-- of the caller. Every entry holds at least one change, so they hold the newest `limit` changes the caller wants.
-- KEYS: subscription, ledger   ARGV: gpsi, visible customers (JSON array), limit
-- Returns { status JSON, entry... }: entries travel as stored; ledger-entry.ts decodes them.
-- @flags no-writes
-- @include balance
local facts = subscriptionFacts(KEYS[1])
local refused = precondition(facts, ARGV[1], cjson.decode(ARGV[2]))
-- the history of a subscription that ended by a port-out stays readable to its owner
if refused and facts[FACT_STATUS] == 'PORTED_OUT' and refused.code == 'NOT_FOUND' and refused.problems then refused = nil end
if refused then return { cjson.encode({ error = refused }) } end
local entries = redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
table.insert(entries, 1, cjson.encode({ subscription = facts }))
return entries
