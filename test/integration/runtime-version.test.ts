import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REQUIRED_NODE_MAJOR } from '../../src/config/runtime-version';

// Each program started as an operator would on an older Node: the machine's own /usr/bin/node when it is
// older (Node 20 on the CI machine), else this Node told it is 20 — before anything loads the Kafka client.
const ROOT = join(__dirname, '..', '..');
const MACHINE_NODE = '/usr/bin/node';
const machineMajor = existsSync(MACHINE_NODE) ? Number(/^v(\d+)/.exec(spawnSync(MACHINE_NODE, ['--version'], { encoding: 'utf8' }).stdout)?.[1]) : NaN;
const useMachineNode = machineMajor < REQUIRED_NODE_MAJOR;
// NODE_OPTIONS, not a flag: tsx starts the program in a child process of the same Node
const PRETEND_NODE_20 = `--require ${join(ROOT, 'test', 'support', 'pretend-node-20.cjs')}`;

function runOnOlderNode(args: string[]) {
  // no Kafka, registry or Redis settings: a program that got past the check would stop on those instead
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...(useMachineNode ? {} : { NODE_OPTIONS: PRETEND_NODE_20 }) };
  return spawnSync(useMachineNode ? MACHINE_NODE : process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const PROGRAMS: [string, string[]][] = [
  ['service', [TSX_CLI, 'src/entry/service.ts']],
  ['gateway', [TSX_CLI, 'src/entry/gateway.ts']],
  ['webhooks', [TSX_CLI, 'src/entry/webhooks.ts']],
  ['wholesale', ['bin/wholesale.js', 'portin', 'eligibility', '--gpsi', '19459986891']],
];

describe(`every program on a Node older than ${REQUIRED_NODE_MAJOR}`, () => {
  it.each(PROGRAMS)('%s prints one line naming the Node it needs and exits 2', (program, args) => {
    const run = runOnOlderNode(args);
    expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({
      status: 2,
      stderr: expect.stringMatching(new RegExp(`^${program}: needs Node ${REQUIRED_NODE_MAJOR} or later; this is Node v20\\.\\S+ \\(docs/node\\.md[^\\n]*\\)$`)),
    });
    expect(run.stdout).toBe('');
  });
});
