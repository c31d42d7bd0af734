import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { envFor } from '../support/harness';
import { gpsiEndingIn, startTestSimulator } from '../support/client';
import { useService } from '../support/service-fixture';

const ROOT = resolve(__dirname, '..', '..');

/**
 * The client as a partner's project takes it: `npm run pack:client` builds the package, a fresh project
 * installs the tarball from the npm registry's dependencies, and the README's runnable example ports a number
 * in against the real stack from there — nothing of this repository on its module path.
 */
describe('the installable client package (wholesale-client)', () => {
  let project: string;

  const fx = useService();

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    project = mkdtempSync(join(tmpdir(), 'partner-project-'));
  });

  afterAll(async () => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  // The service runs in this process: the example must run beside it, not block its event loop.
  const run = promisify(execFile);

  it('installs with only what a requester needs and runs the example end to end', async () => {
    const tarball = (await run('npx', ['tsx', 'scripts/pack-client.ts'], { cwd: ROOT, encoding: 'utf8' })).stdout.trim().split('\n').pop()!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-project', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project, encoding: 'utf8' });
    const installedKb = Number(execFileSync('du', ['-sk', 'node_modules'], { cwd: project, encoding: 'utf8' }).split('\t')[0]);
    const packages = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: project, encoding: 'utf8' }).trim().split('\n').length - 1;
    console.log(`wholesale-client installed: ${(installedKb / 1024).toFixed(1)} MiB in node_modules, ${packages} packages`);
    for (const serviceOnly of ['ioredis', 'pino', 'prom-client', 'commander', 'jose', 'typescript']) expect(existsSync(join(project, 'node_modules', serviceOnly))).toBe(false);
    // the Kafka client the library runs on, and not the one it left (kafkajs is a dev dependency of this repository only)
    expect(existsSync(join(project, 'node_modules', '@platformatic', 'kafka'))).toBe(true);
    expect(existsSync(join(project, 'node_modules', 'kafkajs'))).toBe(false);

    copyFileSync(join(ROOT, 'examples', 'client-quickstart.js'), join(project, 'client-quickstart.js'));
    const env = { ...process.env, ...envFor(fx.config), NODE_PATH: '' };
    const { stdout: output } = await run(process.execPath, ['client-quickstart.js', gpsiEndingIn('42')], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
    const steps = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(steps).toEqual([
      { step: 'eligibility', status: 'Success', eligibilityStatus: 'Eligible' },
      { step: 'createPortIn', status: 'Success', portStatus: 'OPEN' },
      { step: 'event', portStatus: 'COMPLETED', ceId: expect.any(String) },
      { step: 'queryBalances', status: 'Success', balances: 1 },
    ]);
  }, 240_000);
});
