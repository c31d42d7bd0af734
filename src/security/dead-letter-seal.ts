import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { BinaryReader, BinaryWriter } from '../contract/binary-layout';

/**
 * Dead letters keep what a poison record carried (a CreatePortIn's pwdPin and accountNo among it) only
 * encrypted: AES-256-GCM with a configured key (DLQ_ENCRYPTION_KEY), so the DLQ topic holds no secret in
 * clear and an operator with the key gets the original bytes back (`wholesale admin dlq decrypt`).
 * Pure functions; the only thing not given is a fresh random nonce per dead letter.
 *
 * Sealed plaintext: 0x01 | diagnostic text | u16 n | n × (name text | tagged header value) | tagged value.
 * The ciphertext is followed by GCM's 16-byte tag. The associated data binds it to the key id and the
 * source position the clear x-dlq-* headers name, so a sealed body moved to another letter does not open.
 */
export interface DeadLetterKey {
  id: string;
  /** 32 bytes. */
  secret: Buffer;
}

/** Key id → key: the current key and the ones before it, to open older dead letters after a rotation. */
export type DeadLetterKeyring = ReadonlyMap<string, Buffer>;

/** What the poison record carried, inside the seal. */
export interface SealedOriginal {
  value: Buffer | null;
  /** The original headers (all but Authorization, which never leaves the service), in their order. */
  headers: [name: string, value: Buffer | string][];
  /** The full failure text (an Avro decoder's message may quote field values, so it stays inside too). */
  diagnostic: string;
}

export interface SealedDeadLetter {
  ciphertext: Buffer;
  nonce: Buffer;
}

export const DEAD_LETTER_CIPHER = 'AES-256-GCM';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const LAYOUT_V1 = 0x01;

export class DeadLetterSealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadLetterSealError';
  }
}

/** The associated data: the key id and where the record came from (all in the clear headers). */
export const sealContext = (keyId: string, source: { topic: string; partition: number | string; offset: string }): Buffer =>
  Buffer.from(`${keyId}\n${source.topic}/${source.partition}/${source.offset}`, 'utf8');

export function encodeOriginal(original: SealedOriginal): Buffer {
  const w = new BinaryWriter();
  w.u8(LAYOUT_V1);
  w.text(original.diagnostic);
  w.u16(original.headers.length);
  for (const [name, value] of original.headers) {
    w.text(name);
    w.tagged(value);
  }
  w.tagged(original.value);
  return w.done();
}

export function decodeOriginal(plaintext: Buffer): SealedOriginal {
  const r = new BinaryReader(plaintext, 'sealed dead letter');
  const layout = r.u8();
  if (layout !== LAYOUT_V1) throw new DeadLetterSealError(`sealed dead letter: unknown layout ${layout}`);
  const diagnostic = r.text();
  const headers: [string, Buffer | string][] = [];
  for (let n = r.u16(); n > 0; n--) {
    const name = r.text();
    const value = r.tagged();
    if (value !== null) headers.push([name, value]);
  }
  const value = r.tagged();
  r.end();
  if (typeof value === 'string') throw new DeadLetterSealError('sealed dead letter: the value must be bytes');
  return { value, headers, diagnostic };
}

export function checkKey(secret: Buffer): void {
  if (secret.length !== KEY_BYTES) throw new DeadLetterSealError(`a dead-letter key is ${KEY_BYTES} bytes, this one ${secret.length}`);
}

export function sealDeadLetter(original: SealedOriginal, key: DeadLetterKey, context: Buffer, nonce: Buffer = randomBytes(NONCE_BYTES)): SealedDeadLetter {
  checkKey(key.secret);
  const cipher = createCipheriv(ALGORITHM, key.secret, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(context);
  const body = Buffer.concat([cipher.update(encodeOriginal(original)), cipher.final(), cipher.getAuthTag()]);
  return { ciphertext: body, nonce };
}

/** Opens a sealed dead letter with the key its id names; any change to the bytes, the context or the key fails. */
export function openDeadLetter(sealed: SealedDeadLetter, keyId: string, context: Buffer, keyring: DeadLetterKeyring): SealedOriginal {
  const secret = keyring.get(keyId);
  if (!secret) throw new DeadLetterSealError(`no key with id "${keyId}" (known: ${[...keyring.keys()].join(', ') || 'none'})`);
  checkKey(secret);
  if (sealed.nonce.length !== NONCE_BYTES || sealed.ciphertext.length < TAG_BYTES) throw new DeadLetterSealError('the sealed dead letter is malformed');
  const decipher = createDecipheriv(ALGORITHM, secret, sealed.nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(context);
  decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - TAG_BYTES));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(sealed.ciphertext.subarray(0, sealed.ciphertext.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new DeadLetterSealError(`the dead letter does not open with key "${keyId}": altered, or sealed with another key of that id`);
  }
  return decodeOriginal(plaintext);
}
