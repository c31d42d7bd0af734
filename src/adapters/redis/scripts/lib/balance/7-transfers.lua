-- Transfers between two subscriptions of one partner, which live in different Cluster slots: no script
-- holds both, so a transfer is three steps, each atomic and idempotent under the transfer's id (its
-- command id) — transferDebit (source), transferCredit (target), transferSettle (source) — and whichever
-- worker runs the command (a redelivery after a crash) runs all three again: each does its part once.
-- The source's transfers hash: id -> format|state|seq|amount|purchasedTaken (format 1; state pending,
-- completed or reversed; purchasedTaken: the part of the debit that was purchased credit, given back as
-- such by a reversal). The target's credits hash: id -> format|credited|<ledger row> or format|refused|<reason>.
local TRANSFER_FORMAT = '1'

local function transferRead(key, id)
  return formattedRead(key, id, TRANSFER_FORMAT, 'transfer')
end
