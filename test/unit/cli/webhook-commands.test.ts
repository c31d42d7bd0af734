import { rangeBound } from '../../../src/cli/webhook-commands';
import { UsageError } from '../../../src/cli/input';

describe('wholesale admin webhooks redeliver: range bounds', () => {
  it('takes dead-letter ids and the stream ends as they are, and ISO times as their milliseconds', () => {
    expect(rangeBound('1764334800000-3', '--from')).toBe('1764334800000-3');
    expect(rangeBound('-', '--from')).toBe('-');
    expect(rangeBound('+', '--to')).toBe('+');
    expect(rangeBound('2026-11-28T13:00:00Z', '--from')).toBe(String(Date.parse('2026-11-28T13:00:00Z')));
  });

  it('refuses anything else, naming the option', () => {
    expect(() => rangeBound('yesterday', '--from')).toThrow(UsageError);
    expect(() => rangeBound('yesterday', '--from')).toThrow(/--from/);
  });
});
