import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Runs `wholesale …` as a child process (bin/wholesale.js), the way a user or a script would. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = join(__dirname, '..', '..', 'bin', 'wholesale.js');

export function runWholesale(args: string[], env: Record<string, string>, options: { input?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
