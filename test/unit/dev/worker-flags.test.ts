import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_NODE_FLAGS } from '../../../bench/worker-flags';

/** The benchmark measures the worker as production starts it: the same node flags everywhere. */
describe("the worker's node flags", () => {
  const root = join(__dirname, '..', '..', '..');
  const entry = 'dist/src/entry/service.js';

  it('npm start runs the worker with them', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(['node', ...WORKER_NODE_FLAGS, entry].join(' '));
  });

  it('the image runs the worker with them', () => {
    const cmd = readFileSync(join(root, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('CMD '))
      .at(-1);
    expect(JSON.parse(cmd!.slice('CMD '.length))).toEqual(['node', ...WORKER_NODE_FLAGS, entry]);
  });
});
