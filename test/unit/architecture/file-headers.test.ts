import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// A file's header is a line comment: TypeScript attaches a /** … */ block to the declaration after it, so a
// header written as one shows in an editor as the doc of the file's first symbol (or its first import).
const ROOTS = ['src', 'dev', 'bench', 'scripts', 'test'];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'previous-release' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** `file:line` of each top-level /** block that documents nothing: a blank line or, at the top, an import follows it. */
function detachedDocBlocks(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: string[] = [];
  let codeSeen = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('/**')) {
      let end = i;
      while (end < lines.length && !lines[end].includes('*/')) end++;
      const next = lines[end + 1] ?? '';
      if (next.trim() === '' || (!codeSeen && next.startsWith('import '))) found.push(`${file}:${i + 1}`);
      i = end;
      continue;
    }
    if (line.trim() !== '' && !line.startsWith('//') && !line.startsWith('#!')) codeSeen = true;
  }
  return found;
}

describe('file headers', () => {
  it('are line comments, not doc blocks that TypeScript would attach to the next declaration', () => {
    expect(ROOTS.flatMap(sourceFiles).flatMap(detachedDocBlocks)).toEqual([]);
  });
});
