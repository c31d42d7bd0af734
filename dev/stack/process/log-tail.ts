import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The last `lines` lines of a log file (reads at most the last 64 KiB); '' when the file is missing. */
export function readLogTail(file: string, lines: number): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return lastLines(buffer.toString('utf8'), lines);
  } finally {
    closeSync(fd);
  }
}

export function lastLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(Math.max(0, all.length - lines)).join('\n');
}
