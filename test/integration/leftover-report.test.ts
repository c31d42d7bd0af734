import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The suites' teardown (reportLeftovers) must not end the process itself: jest sets the exit code of a
 * failed run after the teardown returns. Its wait once used an unref'd timer, so with nothing else open
 * the process ended during the wait with exit code 0, and a run with failed integration tests passed CI.
 */
describe('reportLeftovers', () => {
  it('returns to its caller, whose exit code stands, when nothing else keeps the process alive', () => {
    const module = join(__dirname, '..', 'support', 'leftover-handles.ts');
    const script = `require(${JSON.stringify(module)}).reportLeftovers(200).then(() => { process.exitCode = 7; });`;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(7);
  });
});
