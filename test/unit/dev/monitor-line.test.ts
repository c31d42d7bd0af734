import { parseMonitorLine } from '../../../bench/redis-probe';

describe("the benchmark's MONITOR reader", () => {
  it("reads a client's command with its source address and arguments", () => {
    expect(parseMonitorLine('+1795799964.208412 [0 127.0.0.1:49682] "fcall" "balancesUpdate" "4" "wh:{1800000000003}:sub"')).toEqual({
      source: '127.0.0.1:49682',
      args: ['fcall', 'balancesUpdate', '4', 'wh:{1800000000003}:sub'],
    });
  });

  it("tells a script's commands by the source lua, and keeps escaped quotes inside one argument", () => {
    expect(parseMonitorLine('+1795799964.208500 [0 lua] "SET" "wh:{1}:done:x" "{\\"at\\":\\"2026\\"}" "EX" "86400"')).toEqual({
      source: 'lua',
      args: ['SET', 'wh:{1}:done:x', '{\\"at\\":\\"2026\\"}', 'EX', '86400'],
    });
  });

  it("skips MONITOR's own OK", () => {
    expect(parseMonitorLine('+OK')).toBeUndefined();
  });
});
