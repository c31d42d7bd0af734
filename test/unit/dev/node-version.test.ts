import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One Node major everywhere: package.json `engines`, the `node` dev dependency (the binary `npm run` puts
 * first on the PATH, so `npm test` runs on it even where the machine's default Node is older) and the
 * image every Dockerfile stage builds on. And the tests themselves run on it.
 */
describe('the Node version', () => {
  const root = join(__dirname, '..', '..', '..');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
  const major = (version: string): number => Number(/^[\^~>=v]*(\d+)/.exec(version)?.[1]);
  const required = major(manifest.engines.node);

  it('engines names a minimum major', () => {
    expect(manifest.engines.node).toMatch(/^>=\d+$/);
    expect(required).toBeGreaterThanOrEqual(24);
  });

  it(`the tests run on a Node the engines accept (this one: ${process.version})`, () => {
    expect(major(process.version)).toBeGreaterThanOrEqual(required);
  });

  it('the node dev dependency brings that major', () => {
    expect(major(manifest.devDependencies.node)).toBe(required);
  });

  it('every stage of the image builds on that major', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(image).toBe(`node:${required}-bookworm-slim`);
    // a stage starts from the image, or from an earlier stage of this file (which did)
    const stages = dockerfile.split('\n').filter((line) => line.startsWith('FROM '));
    const named = new Set<string>();
    expect(stages.length).toBeGreaterThan(0);
    for (const line of stages) {
      const [, base, name] = /^FROM (\S+) AS (\S+)$/.exec(line) ?? [];
      expect([line, base === '${NODE_IMAGE}' || named.has(base)]).toEqual([line, true]);
      named.add(name);
    }
  });
});
