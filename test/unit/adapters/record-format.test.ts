import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBalanceHash, decodeOutcome } from '../../../src/adapters/redis/balance-outcome';
import { decodeLedgerEntry } from '../../../src/adapters/redis/ledger-entry';
import { checkRecordFormat, RECORD_FORMAT } from '../../../src/adapters/redis/record-format';

/**
 * Stored records name their format (record-format.ts): a worker reads the unmarked records of the release
 * before (format 1) and its own alike, and refuses a newer format instead of misreading it.
 */
const gpsi = '4915';
const at = '2026-11-26T10:00:00.000Z';

describe('stored record formats', () => {
  it('the TypeScript and the Lua write and read the same format', () => {
    const lua = readFileSync(join(__dirname, '../../../src/adapters/redis/scripts/lib/balance/1-subscription.lua'), 'utf8');
    expect(/^local FORMAT, FORMAT_TEXT = (\d+), '(\d+)'$/m.exec(lua)?.slice(1)).toEqual([String(RECORD_FORMAT), String(RECORD_FORMAT)]);
  });

  it('absent and every format up to this one pass; a newer one or garbage is refused, naming the record', () => {
    for (const marker of [undefined, null, '', '1', '2', 2]) expect(() => checkRecordFormat(marker, 'x')).not.toThrow();
    expect(() => checkRecordFormat('3', 'ledger entry')).toThrow('stored ledger entry of format 3: newer than this worker reads (up to 2)');
    expect(() => checkRecordFormat('k', 'x')).toThrow('format k');
  });

  it('a ledger entry: its marked change (18th field) reads as the unmarked one; a newer format is refused', () => {
    const changes = 'Subtract,4,1000001,On-Net Data,MB,12500,5120k,5120k,0,5107500,5120k,0;Expired,7,2000001,On-Net Data,MB,,1024k,1024k,0';
    const unmarked = `${at}|UpdateBalances|${changes}|corr`;
    const marked = `${at}|UpdateBalances|Subtract,4,1000001,On-Net Data,MB,12500,5120k,5120k,0,5107500,5120k,0,,,,,,2;Expired,7,2000001,On-Net Data,MB,,1024k,1024k,0|corr`;
    expect(decodeLedgerEntry(marked, gpsi)).toEqual(decodeLedgerEntry(unmarked, gpsi));
    expect(() => decodeLedgerEntry(marked.replace(',,,,,,2', ',,,,,,3'), gpsi)).toThrow('format 3');
  });

  it('a balance record: v 2 reads as no v; a newer v is refused before its content, a recorded refusal too', () => {
    const record = { t: Date.parse(at), f: ['sub-1', 'S1', 'C1', 'WP-BASIC'], c: ['Add,1,,,,1k,7k,100k,5k,8k,100k,5k,,1k'], r: '1|1000001|On-Net SMS|100k|8k|5k|1k' };
    const command = { gpsi, correlationId: 'corr-1', commandId: 'cmd-1' };
    expect(decodeOutcome(JSON.stringify({ ...record, v: 2 }), true, command, [])).toEqual(decodeOutcome(JSON.stringify(record), true, command, []));
    expect(() => decodeOutcome(JSON.stringify({ ...record, v: 3 }), true, command, [])).toThrow('stored balance record of format 3');
    expect(() => decodeOutcome(JSON.stringify({ error: { code: 'CONFLICT', message: 'm' }, v: 3 }), true)).toThrow('format 3');
  });

  it('a balances hash: v is no sub-balance; a newer v is refused', () => {
    const hash = { '1': '1000001|P|On-Net SMS|MB|100000|8000|5000|0|0', o: 'C1' };
    expect(decodeBalanceHash(gpsi, { ...hash, v: '2' })).toEqual(decodeBalanceHash(gpsi, hash));
    expect(() => decodeBalanceHash(gpsi, { ...hash, v: '3' })).toThrow('stored balances hash of format 3');
  });
});
