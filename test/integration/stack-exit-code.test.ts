import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Node process that stops its servers must still end with the exit code it sets after. The supervised
 * servers are unref'd (they never keep Node alive by themselves); a jest globalTeardown awaiting their
 * stop had nothing holding the event loop, Node exited 0 in the middle of it, and a failed test run ended
 * with exit code 0 — CI could not see a failure. Reproduced with a plain child process: start one, kill it,
 * await the kill, then set an exit code as jest does.
 */
const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

describe('stopping supervised servers keeps the process alive to its own exit code', () => {
  it.each(['kill', 'stop'] as const)('await %s(), then process.exitCode = 3 → the process exits 3', (how) => {
    const dir = mkdtempSync(join(tmpdir(), 'exit-code-'));
    try {
      const script = `
        import { SupervisedProcess } from ${JSON.stringify(join(ROOT, 'dev', 'stack', 'process', 'supervisor'))};
        (async () => {
          const server = new SupervisedProcess({ name: 'sleeper', command: 'sleep', args: ['30'], cwd: ${JSON.stringify(dir)}, logFile: ${JSON.stringify(join(dir, 'log'))} });
          server.start();
          await new Promise((resolve) => setTimeout(resolve, 200));
          await server.${how}();
          process.on('exit', () => { process.exitCode = 3; });
        })();`;
      const run = spawnSync(process.execPath, [TSX, '--eval', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 3, stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
