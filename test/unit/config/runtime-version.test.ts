import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { REQUIRED_NODE_MAJOR, unsupportedRuntimeLine } from '../../../src/config/runtime-version';

describe('the runtime check every program makes first', () => {
  it('requires the major package.json engines names', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${REQUIRED_NODE_MAJOR}`);
  });

  it('names the program, the Node it needs and the one it runs on, for every older major; nothing from that major on', () => {
    expect(unsupportedRuntimeLine('gateway', 'v20.20.2')).toBe(
      'gateway: needs Node 24 or later; this is Node v20.20.2 (docs/node.md: run it through npm scripts or npx, or with Node 24 first on the PATH)',
    );
    fc.assert(
      fc.property(fc.nat(200), fc.nat(99), fc.nat(99), (major, minor, patch) => {
        const line = unsupportedRuntimeLine('wholesale', `v${major}.${minor}.${patch}`);
        expect(line === undefined).toBe(major >= REQUIRED_NODE_MAJOR);
      }),
    );
  });
});
