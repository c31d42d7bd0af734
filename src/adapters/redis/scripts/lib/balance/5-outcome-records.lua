-- The recorded outcomes: replay of a delivered command, and the records renewals and commands leave.
-- The recorded outcome of a command, returned as is when the command is delivered again; nil: none, go on.
-- ctx.fp, the command payload's fingerprint, is kept in the record (finish): the same command id with
-- another payload is a CONFLICT (records without one replay as before). ctx.refuseNew {code, message}:
-- no new change may be applied (the partner's idempotency quota is spent), so without a record that
-- error is the answer; a recorded change is still replayed. Neither writes anything.
-- `subKey`: given by the scripts whose records keep only some facts (commandRecord), whose replay answers
-- the subscription's facts as they are now beside it, for the rest.
local function replay(doneKey, ctx, subKey)
  local recorded = redis.call('GET', doneKey)
  local fp = ctx.fp ~= cjson.null and ctx.fp or nil
  if recorded then
    -- "fp": can only be the record's own top-level key (a quote inside a JSON string is escaped), so
    -- comparing the encoded value in place needs no decoding.
    local at = fp and string.find(recorded, '"fp":', 1, true)
    if at then
      local mine = '"fp":' .. cjson.encode(fp)
      local after = string.sub(recorded, at + #mine, at + #mine)
      if string.sub(recorded, at, at + #mine - 1) ~= mine or (after ~= ',' and after ~= '}') then
        return { cjson.encode({ error = { code = 'CONFLICT', message = 'X-Correlation-Id ' .. ctx.correlationId ..
          ' was already used for a different ' .. ctx.operation .. ' command' } }), 0 }
      end
    end
    if subKey then return { recorded, 1, subscriptionFacts(subKey) } end
    return { recorded, 1 }
  end
  if ctx.refuseNew and ctx.refuseNew ~= cjson.null then return { cjson.encode({ error = ctx.refuseNew }), 0 } end
  return nil
end

-- Records a command's outcome and answers it; `facts` (a commandRecord's: the subscription's as they are
-- now) go beside it, as replay gives them.
local function finish(doneKey, ctx, outcome, facts)
  if ctx.fp and ctx.fp ~= cjson.null then outcome.fp = ctx.fp end
  outcome.v = FORMAT
  local encoded = cjson.encode(outcome)
  redis.call('SET', doneKey, encoded, 'EX', tonumber(ctx.ttl))
  return { encoded, 0, facts }
end

-- The outcome of a renewal or an expiry (no command: they go to the renewal outbox, not a 24 h record; a
-- command's is commandRecord). The balances it carries are the hash's own fields and values (balanceRows),
-- decoded by the worker (decodeBalanceRows in balance-outcome.ts); its changes in the ledger's positional
-- layout (changeRows, read by decodeLedgerChange in ledger-entry.ts). The three bulky parts go under
-- one-letter names: s (the facts, as they are after it), c (changeRows), b (balanceRows).
local function success(subKey, balKey, ctx, changes, extra)
  local outcome = { v = FORMAT, at = ctx.at, correlationId = ctx.correlationId, s = subscriptionFacts(subKey), c = {}, b = balanceRows(balKey) }
  for i, c in ipairs(changes) do outcome.c[i] = ledgerChange(c) end
  for k, v in pairs(extra or {}) do outcome[k] = v end
  return outcome
end

-- A hash row's fields as a reply shows them (saveBalance's layout): bucketRefId, |subBalanceType,
-- |allocated|remaining|rollover, and purchased (the 12th field; '' when absent) — one match per row.
local SHOWN_FIELDS = '^([^|]*)|[^|]*(|[^|]*)|[^|]*(|[^|]*|[^|]*|[^|]*)|[^|]*|[^|]*|?[^|]*|?[^|]*|?([^|]*)'

-- Every sub-balance of the hash as a command's reply shows it, in the hash's order, joined by ';' (the
-- catalog keeps '|' and ';' out of a bucketRefId):
--   seq|bucketRefId|subBalanceType|allocated|remaining|rollover[|purchased[|validFrom|validUntil|purchasedUntil[|reserved]]]
-- (reserved: the sum held by reservations, 6-reservations.lua; the amounts without a whole unit's zeros: kiloZeros)
-- — without what only the service reads (bucketKind, rolloverCap, endCycle, alerted, firstCycle), nor the
-- unitType, which the catalog makes the subBalanceType's own (UNIT_BY_SUB_BALANCE_TYPE): 18 of a row's
-- ~60 bytes, in every 24 h record. The bucketRefId is left empty when the row before has it too (a
-- bucket's allowances are created together, so they are neighbours: 3 of WP-BASIC's 4 rows). Built in
-- pieces joined once: this runs for every change.
local function replyRows(balKey)
  if next(hash.sets) ~= nil or next(hash.dels) ~= nil then error('balance writes pending: call writeBalances first') end
  if not hash.loaded then readBalances(balKey) end
  local dated, held = {}, {}
  for _, field in ipairs(hash.order) do
    local last = string.byte(field, -1)
    if last == 118 and field ~= FORMAT_FIELD and hash.values[field] then dated[string.sub(field, 1, -2)] = hash.values[field] end -- <seq>v
    if last == 114 and hash.values[field] then held[string.sub(field, 1, -2)] = hash.values[field] end -- <seq>r: reserved
  end
  local pieces, n, previous = {}, 0, nil
  for _, seq in ipairs(hash.order) do
    local value, last = hash.values[seq], string.byte(seq, -1)
    if value ~= nil and last >= 48 and last <= 57 then -- a sub-balance's own field: digits only
      local bucket, subBalanceType, amounts, purchased = string.match(value, SHOWN_FIELDS)
      pieces[n + 1], pieces[n + 2], pieces[n + 3], pieces[n + 4], pieces[n + 5] = seq, '|', bucket == previous and '' or bucket, subBalanceType, kiloZeros(amounts, '|')
      n = n + 5
      local dates, reserved = dated[seq], held[seq]
      if reserved then
        -- the dates padded to their three fields, so the reserved amount is the 11th
        local padded = dates or ''
        padded = padded .. string.rep('|', 2 - select(2, string.gsub(padded, '|', '|')))
        pieces[n + 1], pieces[n + 2], pieces[n + 3], pieces[n + 4], pieces[n + 5], pieces[n + 6] = '|', kiloZeros(purchased, '|'), '|', padded, '|', kiloZeros(reserved, '|')
        n = n + 6
      elseif dates then
        pieces[n + 1], pieces[n + 2], pieces[n + 3], pieces[n + 4] = '|', kiloZeros(purchased, '|'), '|', dates
        n = n + 4
      elseif purchased ~= '' then
        pieces[n + 1], pieces[n + 2] = '|', kiloZeros(purchased, '|')
        n = n + 2
      end
      pieces[n + 1] = ';'
      n = n + 1
      previous = bucket
    end
  end
  pieces[n] = nil -- the last ';'
  return table.concat(pieces)
end

-- The record of a balance command (AddBuckets, CancelBuckets, SwapPrimaryBucket, UpdateBalances), read by
-- decodeOutcome in balance-outcome.ts. Its reply and events are rebuilt from it alone, so it keeps only
-- what they show (a 24 h record per change: the largest part of Redis memory per command):
--   t = its time (epoch ms: ctx.atMs); f = the facts its events name: subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId
--   (and cycleNo, cycleStart when it reached thresholds); c = changeRows (a shown sub-balance's named by
--   its row); r = replyRows; the extras.
-- The service reads the rest of the facts (time zone, next renewal) from what the script answers beside it:
-- the subscription's facts as they are now (finish, replay); and the command's correlationId and commandId
-- from the command itself, whose id names the record. `facts`: this script's, after the change.
local function commandRecord(balKey, ctx, changes, extra, facts)
  local record = { t = ctx.atMs, f = { facts[2], facts[3], facts[4], facts[5] }, c = {}, r = replyRows(balKey) }
  for i, c in ipairs(changes) do record.c[i] = ledgerChange(c, hash.values) end
  for k, v in pairs(extra or {}) do record[k] = v end
  if record.thresholds and next(record.thresholds) == nil then record.thresholds = nil end
  if record.thresholds then record.f[5], record.f[6] = facts[10], facts[11] end
  return record
end
