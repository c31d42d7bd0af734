-- Reservations, mirroring src/domain/balance-operations/reservation-rules.ts (checked against it by
-- test/integration/balance-operations.test.ts). A reservation holds part of a sub-balance's remaining
-- balance; the sum held per sub-balance is the balances hash's field <seq>r (absent = 0), beside its row, so
-- every script that reads the hash sees it (a Subtract may not take what is held).
-- A held reservation is a field of the subscription's reservations hash: id -> positional text
--   format|seq|amount|expiresAt
-- (format 1; amount in milli-units; expiresAt epoch ms on Redis's clock). Only reservationRead and the
-- scripts below write or read it.
local RESERVATION_FORMAT = '1'

local function reservedOf(seq)
  return tonumber(hash.values[seq .. 'r'] or '0')
end

-- Sets the sum held on a sub-balance (written by writeBalances); 0 removes the field.
local function setReserved(seq, reserved)
  if reserved > 0 then setField(seq .. 'r', fmt(reserved)) else delField(seq .. 'r') end
end

local function availableOf(remaining, reserved)
  return math.max(0, remaining - reserved)
end

-- Mirrors reserveAmounts: nil and the reason when more than is available.
local function reserveAmounts(remaining, reserved, amount)
  local available = availableOf(remaining, reserved)
  if amount > available then
    return nil, 'exceeds the available balance (requested ' .. units(amount) .. ', available ' .. units(available) .. ')'
  end
  return reserved + amount
end

-- Mirrors commitAmounts: remaining, purchased, reserved after, and what was charged.
local function commitAmounts(remaining, purchased, reserved, held, used)
  local charged = math.min(used, remaining)
  local granted = remaining - purchased
  return remaining - charged, purchased - math.max(0, charged - granted), math.max(0, reserved - held), charged
end

local function releaseAmounts(reserved, held)
  return math.max(0, reserved - held)
end

-- A hash field's positional text (format first) as its fields, or nil; stops on a format this worker cannot read.
local function formattedRead(key, field, format, what)
  local text = redis.call('HGET', key, field)
  if not text then return nil end
  local f = split(text, '|')
  if f[1] ~= format then error('stored ' .. what .. ' of format ' .. tostring(f[1]) .. ': newer than this worker reads (up to ' .. format .. ')') end
  return f
end

-- A held reservation, or nil.
local function reservationRead(resKey, id)
  local f = formattedRead(resKey, id, RESERVATION_FORMAT, 'reservation')
  if not f then return nil end
  return { id = id, seq = f[2], amount = tonumber(f[3]), expiresAt = tonumber(f[4]) }
end

local function reservationWrite(resKey, r)
  redis.call('HSET', resKey, r.id, table.concat({ RESERVATION_FORMAT, r.seq, fmt(r.amount), fmt(r.expiresAt) }, '|'))
end

-- What a reservation command's record adds (decodeReservation in reservation-store.ts): id, seq, amount held,
-- expiry, and for a commit the amount used and the amount charged.
local function reservationFacts(r, used, charged)
  return { id = r.id, n = r.seq, a = fmt(r.amount), e = fmt(r.expiresAt), u = used and fmt(used) or nil, x = charged and fmt(charged) or nil }
end

-- The start of every reservation and transfer command: a recorded outcome is replayed, then the precondition. Returns
-- the answer to give at once, or nil with the context, the payload and the subscription's facts.
-- KEYS as those commands have them: subscription, balances, ledger, done(commandId), then their own.
local function commandStart(keys, argv)
  local ctx = cjson.decode(argv[1])
  local recorded = replay(keys[4], ctx, keys[1])
  if recorded then return recorded end
  local facts = subscriptionFacts(keys[1])
  local refused = precondition(facts, ctx.gpsi, ctx.visible)
  if refused then return finish(keys[4], ctx, { error = refused }) end
  return nil, ctx, cjson.decode(argv[2]), facts
end

-- A refusal naming one field, recorded like every outcome.
local function fieldRefusal(doneKey, ctx, code, path, reason)
  return finish(doneKey, ctx, { error = { code = code, message = 'The command is invalid: ' .. path .. ' ' .. reason, problems = { { path = path, reason = reason } } } })
end
