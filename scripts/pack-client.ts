import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';

/**
 * `npm run pack:client`: the client library as a package of its own, `wholesale-client-<version>.tgz` in
 * dist-client/. Compiled from src/client/index.ts and only what it imports (the dependency rules keep that
 * free of the service, Redis, metrics, CLI and logging code), the Avro schemas beside it, and as
 * dependencies exactly the packages the compiled code requires, at the versions this repository pins.
 * Prints the tarball's path; `npm install <path>` is how a partner's project takes it.
 */
const ROOT = resolve(__dirname, '..');
const OUT = join(ROOT, 'dist-client');
const PACKAGE = join(OUT, 'package');

function compile(): void {
  const tsconfig = {
    extends: '../tsconfig.json',
    compilerOptions: { outDir: 'package/dist', rootDir: '..', declaration: true, noEmit: false, types: ['node'] },
    files: ['../src/client/index.ts'],
    include: [],
  };
  writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(OUT, 'tsconfig.json')], { stdio: 'inherit' });
}

const jsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? jsFiles(path) : path.endsWith('.js') ? [path] : [];
  });

/** The packages the compiled code requires (their root names), node's own modules left out. */
export function requiredPackages(sources: readonly string[]): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    for (const [, specifier] of source.matchAll(/require\("([^"./][^"]*)"\)/g)) {
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      if (!name.startsWith('node:') && !builtinModules.includes(name)) names.add(name);
    }
  }
  return [...names].sort();
}

function main(): void {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(PACKAGE, { recursive: true });
  compile();
  cpSync(join(ROOT, 'schemas'), join(PACKAGE, 'dist', 'schemas'), { recursive: true });
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: object; dependencies: Record<string, string> };
  const needed = requiredPackages(jsFiles(join(PACKAGE, 'dist')).map((file) => readFileSync(file, 'utf8')));
  const missing = needed.filter((name) => root.dependencies[name] === undefined);
  if (missing.length > 0) throw new Error(`the client requires packages the repository does not depend on: ${missing.join(', ')}`);
  const manifest = {
    name: 'wholesale-client',
    version: root.version,
    description: 'Typed Kafka client of the wholesale port-in and balance service: send commands, await replies, read events',
    license: 'UNLICENSED',
    engines: root.engines,
    main: 'dist/src/client/index.js',
    types: 'dist/src/client/index.d.ts',
    files: ['dist', 'README.md'],
    dependencies: Object.fromEntries(needed.map((name) => [name, root.dependencies[name]])),
  };
  writeFileSync(join(PACKAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(ROOT, 'docs', 'client.md'), join(PACKAGE, 'README.md'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', OUT], { cwd: PACKAGE, encoding: 'utf8' }).trim().split('\n').pop()!;
  process.stdout.write(`${join(OUT, tarball)}\n`);
}

if (require.main === module) main();
