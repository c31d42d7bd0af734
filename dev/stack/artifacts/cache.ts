import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A folder in the cache, filled once by `populate` and reused by every later run. It is filled under a
 * temporary name and renamed into place, so concurrent runs (other worktrees, parallel test files) never
 * see a half-filled folder; the loser of a race throws its copy away.
 */
export async function cachedFolder(cacheDir: string, key: string, populate: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(cacheDir, key);
  if (existsSync(folder)) return folder;
  mkdirSync(cacheDir, { recursive: true });
  const staging = `${folder}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    await populate(staging);
    try {
      renameSync(staging, folder);
    } catch (error) {
      if (!existsSync(folder)) throw error; // otherwise another run won the race: use its copy
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return folder;
}

// One Maven at a time per process: Maven 3.8 does not lock its local repository, and on a fresh machine two
// runs would download the same plugins into it at once.
let mavenQueue: Promise<unknown> = Promise.resolve();

/** Runs Maven in batch mode, one run at a time; its output is in the error when it fails. */
export function runMaven(args: readonly string[], cwd: string): Promise<void> {
  const run = mavenQueue.then(() => runMavenNow(args, cwd));
  mavenQueue = run.catch(() => undefined);
  return run;
}

async function runMavenNow(args: readonly string[], cwd: string): Promise<void> {
  try {
    await run('mvn', ['-B', '-q', ...args], { cwd, timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '', code } = error as { stdout?: string; stderr?: string; code?: string | number };
    const hint = code === 'ENOENT' ? ' (Maven is not installed: apt-get install maven)' : '';
    throw new Error(`mvn ${args.join(' ')} failed${hint}:\n${String(stdout).slice(-4000)}${String(stderr).slice(-4000)}`, { cause: error });
  }
}
