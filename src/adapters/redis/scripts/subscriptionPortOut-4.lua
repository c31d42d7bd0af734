-- Port-out: ACTIVE -> PORTED_OUT, the subscription ends in one atomic step, so a balance change either
-- ran before it (and shows in what is closed) or is refused after it. Every sub-balance is closed (a
-- Closed change carrying what it had left), the ledger keeps that last entry, the owner mark leaves the
-- balances hash (a query then reads the status and is refused). The outcome is kept with no expiry (a
-- subscription ends once): ending again answers it. A subscription not ACTIVE is left alone: { '', 0 }.
-- KEYS: subscription, balances, ledger, done(causeId)
-- ARGV: context JSON {gpsi, at, causeId, correlationId, operation, retention, portOutId}
-- Returns { outcome JSON or '', replayed 0|1 }.
-- @include balance
local ctx = cjson.decode(ARGV[1])
local recorded = redis.call('GET', KEYS[4])
if recorded then return { recorded, 1 } end
local facts = subscriptionFacts(KEYS[1])
if facts[FACT_STATUS] ~= 'ACTIVE' then return { '', 0 } end

local changes = {}
for _, b in ipairs(loadBalances(KEYS[2], ctx.gpsi)) do changes[#changes + 1] = removeBalance(b, 'Closed') end
delField(OWNER_FIELD)
writeBalances(KEYS[2])
redis.call('HSET', KEYS[1], 'status', 'PORTED_OUT', 'portedOutAt', ctx.at, 'portOutId', ctx.portOutId)
appendLedger(KEYS[3], ctx, changes)
local encoded = cjson.encode(success(KEYS[1], KEYS[2], ctx, changes, { causeId = ctx.causeId, reason = 'PORTED_OUT' }))
redis.call('SET', KEYS[4], encoded)
return { encoded, 0 }
