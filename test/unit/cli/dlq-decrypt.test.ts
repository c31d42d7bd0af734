import { randomBytes } from 'node:crypto';
import { runCli } from '../../../src/cli/program';
import { EXIT } from '../../../src/cli/exit-codes';
import type { CliIo } from '../../../src/cli/io';
import { deadLetterMessage } from '../../../src/pipeline/outbound';
import { type Outbound } from '../../../src/contract/transport';

/** `wholesale admin dlq decrypt --file`: dead letters from a file opened with the keys of the environment (no Kafka, no registry). */
const key = { id: 'k2', secret: randomBytes(32) };
const previous = { id: 'k1', secret: randomBytes(32) };
const original = Buffer.concat([Buffer.from([0, 0, 0, 0, 9]), Buffer.from('pwdPin Pin-7Qx-0417')]);
const record = { key: Buffer.from('19459986891'), value: original, headers: { 'X-Correlation-Id': 'c-1', kafka_correlationId: Buffer.from([1, 0xff]) }, timestamp: '17' };
const letter = (sealedWith = key, offset = '42') =>
  deadLetterMessage(
    { topic: 'dlq', key: sealedWith },
    record,
    { topic: 'wholesale.portin.commands.v1', partition: 1, offset },
    { reason: 'UNDECODABLE', detail: 'Avro body does not match schema 9' },
  );
const line = (l: Outbound) =>
  JSON.stringify({ key: String(l.key), value: l.value?.toString('base64') ?? null, headers: Object.fromEntries(Object.entries(l.headers).map(([n, v]) => [n, String(v)])) });

async function run(args: string[], files: Record<string, string>, env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readFile: async (p) => files[p], onInterrupt: () => () => undefined };
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await runCli(['--brokers', '127.0.0.1:1', ...args], { io });
    return { code, out, err };
  } finally {
    process.env = saved;
  }
}

const keysEnv = { DLQ_ENCRYPTION_KEY: key.secret.toString('base64'), DLQ_ENCRYPTION_KEY_ID: key.id, DLQ_DECRYPTION_KEYS: `${previous.id}:${previous.secret.toString('base64')}` };

describe('wholesale admin dlq decrypt --file', () => {
  it('prints each original record: key, headers, the value byte for byte; letters of a rotated key open too', async () => {
    const file = [line(letter()), line(letter(previous, '43'))].join('\n');
    const { code, out, err } = await run(['--json', 'admin', 'dlq', 'decrypt', '--file', 'letters.jsonl'], { 'letters.jsonl': file }, keysEnv);
    expect([code, err]).toEqual([EXIT.SUCCESS, []]);
    const printed = out.map((o) => JSON.parse(o));
    expect(printed.map((p) => Buffer.from(p.valueBase64, 'base64').equals(original))).toEqual([true, true]);
    expect(printed[0]).toMatchObject({ at: 'letters.jsonl:1', reason: 'UNDECODABLE', correlationId: 'c-1', key: '19459986891', source: 'wholesale.portin.commands.v1/1@42' });
    expect(printed[0].headers).toEqual({ 'X-Correlation-Id': 'c-1', kafka_correlationId: 'base64:Af8=' });
  });

  it('a letter that does not open (altered, or a key it does not name) is reported and exits 1; no key at all is a usage error', async () => {
    const altered = JSON.parse(line(letter()));
    altered.headers['x-dlq-source-offset'] = '99';
    const { code, err } = await run(['admin', 'dlq', 'decrypt', '--file', 'f'], { f: [JSON.stringify(altered), line(letter({ id: 'k9', secret: randomBytes(32) }))].join('\n') }, keysEnv);
    expect(code).toBe(EXIT.FAILURE);
    expect(err.join('\n')).toMatch(/f:1: the dead letter does not open with key "k2"/);
    expect(err.join('\n')).toMatch(/f:2: no key with id "k9"/);
    const none = await run(['admin', 'dlq', 'decrypt', '--file', 'f'], { f: line(letter()) }, { DLQ_ENCRYPTION_KEY: '', DLQ_DECRYPTION_KEYS: '' });
    expect(none.code).toBe(EXIT.USAGE);
  });

  it('a letter of a service without a key says it carries no body', async () => {
    const dropped = deadLetterMessage({ topic: 'dlq' }, record, { topic: 't', partition: 0, offset: '1' }, { reason: 'NOT_AVRO', detail: 'd' });
    const { code, out } = await run(['admin', 'dlq', 'decrypt', '--file', 'f'], { f: line(dropped) }, keysEnv);
    expect(code).toBe(EXIT.SUCCESS);
    expect(out.join('\n')).toContain('no sealed body (x-dlq-value-dropped: 24 bytes)');
  });
});
