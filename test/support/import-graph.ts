import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the project's TypeScript, read with the compiler's own scanner (imports, exports
 * from, require, import(); type-only imports too: a type drags its module into every reader's build).
 * Files are repository-relative paths (`src/pipeline/envelope.ts`); a package import is its package name
 * (`kafkajs`, `@kafkajs/confluent-schema-registry`), a Node built-in `node:<name>`.
 */
export const ROOT = join(__dirname, '..', '..');

export interface ImportGraph {
  /** Every file read, with what it imports. */
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

const listTs = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return listTs(path);
    return /\.ts$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });

const repoPath = (path: string): string => relative(ROOT, path).split(sep).join('/');

function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) if (existsSync(candidate) && statSync(candidate).isFile()) return repoPath(candidate);
  throw new Error(`${repoPath(from)}: cannot resolve import '${specifier}'`);
}

const packageOf = (specifier: string): string => {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};

export function readImportGraph(folders: readonly string[]): ImportGraph {
  const imports = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => listTs(join(ROOT, folder)))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    imports.set(
      repoPath(file),
      importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? resolveRelative(file, fileName) : packageOf(fileName))),
    );
  }
  return { imports };
}

/** Every file `from` reaches through its imports (itself included), packages as their names. */
export function reachable(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.imports.get(next) ?? []));
  }
  return seen;
}

/** The cycles of a graph (its strongly connected components of more than one node, or a node importing itself). */
export function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) !== indexOf.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of edges.keys()) if (!indexOf.has(node)) visit(node);
  return cycles;
}
