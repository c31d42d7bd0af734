import fc from 'fast-check';
import { expiryScheduleKey, portInKeys, portOrderKey, transactionKey } from '../../../src/adapters/redis/portin-keys';

/** Redis Cluster hashes only the hash tag: the text between the first "{" and the first "}" after it, when not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

describe('port-in keys', () => {
  it("puts every key of a number in the number's slot", () => {
    const keys = portInKeys('wh:', '19459986891');
    expect(new Set([keys.current, keys.history, keys.outcome('cmd:abc'), keys.outcome('np:x')].map(hashTag))).toEqual(new Set(['19459986891']));
  });

  it('gives each partner transaction and port order its own slot, whatever characters the ids hold', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (owner, ptid, order) => {
        expect(hashTag(transactionKey('wh:', owner, ptid))).toBe(`ptx:${encodeURIComponent(owner)}:${encodeURIComponent(ptid)}`);
        expect(hashTag(portOrderKey('wh:', order))).toBe(`po:${encodeURIComponent(order)}`);
      }),
    );
    expect(transactionKey('wh:', 'a', 'b:c')).not.toBe(transactionKey('wh:', 'a:b', 'c'));
    expect(hashTag(expiryScheduleKey('wh:'))).toBe('portin-expiry');
  });
});
