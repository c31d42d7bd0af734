import { readFileSync } from 'node:fs';

/** What the CLI does with the outside world, injected so its logic is testable without a terminal. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads a file, or standard input for "-". */
  readFile(path: string): Promise<string>;
  /** Calls `handler` on Ctrl-C / SIGTERM; returns a function that stops listening. */
  onInterrupt(handler: () => void): () => void;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  stderr: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  readFile: async (path) => (path === '-' ? readStdin() : readFileSync(path, 'utf8')),
  onInterrupt: (handler) => {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};
