import type { Outbound } from '../../contract/transport';
import type { StoredOutcome } from '../../pipeline/ports';
import { BinaryReader, BinaryWriter } from '../../contract/binary-layout';

/**
 * The bytes the reply cache keeps per answered command: its fingerprint and every message it sent, in a
 * small binary layout instead of JSON with base64 — no base64 growth (a third of the Avro bodies), no
 * JSON text to build and parse on the hot path, so less worker CPU, fewer bytes on the wire and less
 * Redis memory for the IDEMPOTENCY_TTL_SECONDS each outcome is kept.
 *
 *   0x01 | fingerprint | u16 count | count × ( topic | i32 partition (-1: none) | key | value | u16 n | n × (name | header) )
 *   0x02 | u8 flags | then as 0x01 (flag 1: rerun)
 *   text = u32 length + UTF-8; key and header values = tag (0 null, 1 bytes, 2 text) + u32 length + bytes
 *
 * Outcomes written by the earlier JSON layout (they start with "{") are still read.
 */
const FORMAT_V1 = 0x01;
const FORMAT_V2 = 0x02;
const RERUN = 0x01;
export function encodeOutcome(outcome: StoredOutcome): Buffer {
  const w = new BinaryWriter();
  if (outcome.rerun) {
    w.u8(FORMAT_V2);
    w.u8(RERUN);
  } else w.u8(FORMAT_V1);
  w.text(outcome.fingerprint);
  w.u16(outcome.messages.length);
  for (const m of outcome.messages) {
    w.text(m.topic);
    w.i32(m.partition ?? -1);
    w.tagged(m.key);
    w.tagged(m.value);
    const headers = Object.entries(m.headers);
    w.u16(headers.length);
    for (const [name, value] of headers) {
      w.text(name);
      w.tagged(value);
    }
  }
  return w.done();
}

export function decodeOutcome(stored: Buffer): StoredOutcome {
  if (stored[0] === 0x7b) return decodeLegacyJson(stored.toString('utf8'));
  const r = new BinaryReader(stored, 'stored outcome');
  const format = r.u8();
  if (format !== FORMAT_V1 && format !== FORMAT_V2) throw new Error(`stored outcome: unknown format ${format}`);
  const rerun = format === FORMAT_V2 && (r.u8() & RERUN) !== 0;
  const fingerprint = r.text();
  const messages: Outbound[] = [];
  for (let count = r.u16(); count > 0; count--) {
    const topic = r.text();
    const partition = r.i32();
    const key = r.tagged();
    const value = r.tagged();
    const entries: [string, string | Buffer][] = [];
    for (let n = r.u16(); n > 0; n--) {
      const name = r.text();
      const header = r.tagged();
      if (header !== null) entries.push([name, header]);
    }
    // fromEntries defines own properties: a header named "__proto__" stays a header.
    const headers = Object.fromEntries(entries);
    if (typeof value === 'string') throw new Error('stored outcome: a message value must be bytes');
    messages.push({ topic, ...(partition >= 0 ? { partition } : {}), key, value, headers });
  }
  r.end();
  return rerun ? { fingerprint, messages, rerun } : { fingerprint, messages };
}

/** The first layout: JSON, bodies in base64, texts marked "s:" and bytes "b64:". */
function decodeLegacyJson(raw: string): StoredOutcome {
  const parsed = JSON.parse(raw) as { f: string; m: { t: string; p?: number; k: string | null; v: string | null; h: Record<string, string> }[] };
  const bytesOrText = (value: string): Buffer | string => (value.startsWith('b64:') ? Buffer.from(value.slice(4), 'base64') : value.slice(2));
  return {
    fingerprint: parsed.f,
    messages: parsed.m.map((s) => ({
      topic: s.t,
      ...(s.p !== undefined ? { partition: s.p } : {}),
      key: s.k === null ? null : bytesOrText(s.k),
      value: s.v === null ? null : Buffer.from(s.v, 'base64'),
      headers: Object.fromEntries(Object.entries(s.h).map(([name, value]) => [name, bytesOrText(value)])),
    })),
  };
}
