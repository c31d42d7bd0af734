import { randomBytes } from 'node:crypto';
import { DeadLetterSealError, decodeOriginal, encodeOriginal, openDeadLetter, sealContext, sealDeadLetter, type SealedOriginal } from '../../../src/security/dead-letter-seal';

const current = { id: 'k2', secret: randomBytes(32) };
const previous = { id: 'k1', secret: randomBytes(32) };
const keyring = new Map([current, previous].map((k) => [k.id, k.secret]));
const source = { topic: 'wholesale.portin.commands.v1', partition: 1, offset: '42' };
const original: SealedOriginal = {
  value: Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from('pwdPin=Pin-7Qx-0417 accountNo=ACCT-88k-31947')]),
  headers: [
    ['X-Correlation-Id', 'c-1'],
    ['kafka_correlationId', Buffer.from([1, 2, 3, 0xff])],
    ['wholesaleCustomerId', 'alpha'],
  ],
  diagnostic: 'Avro body does not match schema 7: invalid "Pin-7Qx-0417"',
};
const contextOf = (keyId: string) => sealContext(keyId, source);

describe('dead-letter seal (AES-256-GCM)', () => {
  it('round trip: what was sealed opens byte for byte, and the ciphertext holds nothing of it in clear', () => {
    const sealed = sealDeadLetter(original, current, contextOf(current.id));
    expect(sealed.ciphertext.includes('Pin-7Qx-0417')).toBe(false);
    expect(sealed.ciphertext.includes('alpha')).toBe(false);
    expect(openDeadLetter(sealed, current.id, contextOf(current.id), keyring)).toEqual(original);
  });

  it('a null value and no headers survive the layout', () => {
    const empty = { value: null, headers: [], diagnostic: '' };
    expect(decodeOriginal(encodeOriginal(empty))).toEqual(empty);
  });

  it('a fresh nonce per seal: the same record twice gives two different ciphertexts', () => {
    const a = sealDeadLetter(original, current, contextOf(current.id));
    const b = sealDeadLetter(original, current, contextOf(current.id));
    expect(a.nonce.equals(b.nonce)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  it('tampering is refused: a flipped byte of the body or the tag, another nonce, another source position', () => {
    const sealed = sealDeadLetter(original, current, contextOf(current.id));
    const flipped = (bytes: Buffer, at: number) => Buffer.from(bytes.map((b, i) => (i === at ? b ^ 1 : b)));
    const attempts = [
      () => openDeadLetter({ ...sealed, ciphertext: flipped(sealed.ciphertext, 3) }, current.id, contextOf(current.id), keyring),
      () => openDeadLetter({ ...sealed, ciphertext: flipped(sealed.ciphertext, sealed.ciphertext.length - 1) }, current.id, contextOf(current.id), keyring),
      () => openDeadLetter({ ...sealed, nonce: flipped(sealed.nonce, 0) }, current.id, contextOf(current.id), keyring),
      () => openDeadLetter(sealed, current.id, sealContext(current.id, { ...source, offset: '43' }), keyring),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(/does not open with key "k2"/);
  });

  it('the key id picks the key: an unknown id and a key of that id that is not the sealing one are refused', () => {
    const sealed = sealDeadLetter(original, current, contextOf(current.id));
    expect(() => openDeadLetter(sealed, 'k9', contextOf('k9'), keyring)).toThrow(/no key with id "k9" \(known: k2, k1\)/);
    expect(() => openDeadLetter(sealed, current.id, contextOf(current.id), new Map([[current.id, previous.secret]]))).toThrow(DeadLetterSealError);
    // the key id is part of what is authenticated: relabelling a letter with another known id fails too
    expect(() => openDeadLetter(sealed, previous.id, contextOf(previous.id), new Map([[previous.id, current.secret]]))).toThrow(DeadLetterSealError);
  });

  it('rotation: letters sealed with the previous key still open from a keyring holding both', () => {
    const old = sealDeadLetter(original, previous, contextOf(previous.id));
    expect(openDeadLetter(old, previous.id, contextOf(previous.id), keyring).value).toEqual(original.value);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => sealDeadLetter(original, { id: 'short', secret: randomBytes(16) }, contextOf('short'))).toThrow(/32 bytes/);
  });
});
