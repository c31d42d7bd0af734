import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * `npm run generate`: the Lua scripts of src/adapters/redis/scripts/ (`<name>-<numberOfKeys>.lua`, BullMQ
 * style) as one Redis function library in one TypeScript module, src/adapters/redis/scripts.generated.ts.
 *
 * Why a function library and not one EVALSHA script per step: a script is compiled afresh at every call,
 * shared helpers (`-- @include lib` lines, from scripts/lib/) included — defining the balance lib's
 * functions and tables alone was 4 µs of Redis CPU per call, a third of a QueryBalances. A library runs its
 * top level once, at FUNCTION LOAD: the helpers are defined once, and each script becomes one registered
 * function whose body is the script's (KEYS and ARGV are its parameters).
 *
 * A lib is scripts/lib/<name>.lua, or a folder scripts/lib/<name>/ of pieces `<n>-<what>.lua` joined in the
 * order of n: one lib, split so each piece can be read on its own (the balance lib's 470 lines are five).
 *
 * A library outlives its calls, so state a lib keeps for one call is reset at the start of every function
 * that includes it: the lib names the statement on a `-- @on-call <statement>` line.
 *
 * The library and its functions are named with a hash of the whole library, so two versions of the service
 * (a rolling deploy) each call their own code, as EVALSHA did. The service loads it on first use
 * (scripts.ts). `--check` only compares; a unit test fails when the module is stale.
 */
const ROOT = join(__dirname, '..');
export const SCRIPTS_DIR = join(ROOT, 'src', 'adapters', 'redis', 'scripts');
export const GENERATED_SCRIPTS_FILE = join(ROOT, 'src', 'adapters', 'redis', 'scripts.generated.ts');

const SCRIPT_FILE = /^([a-zA-Z][a-zA-Z0-9]*)-(\d+)\.lua$/;
const INCLUDE = /^--\s*@include\s+([a-zA-Z0-9_-]+)\s*\n?/gm;
const ON_CALL = /^--\s*@on-call\s+(.+?)\s*$/gm;
/** `-- @flags no-writes`: a step that only reads, so Redis runs it even when full (OOM) or a replica. */
const FLAGS = /^--\s*@flags\s+(.+?)\s*$/m;

export interface LuaScript {
  name: string;
  numberOfKeys: number;
  /** The script's source without its include lines. */
  body: string;
  /** The libs it includes, in order. */
  includes: string[];
  /** Redis function flags (`-- @flags`), such as no-writes. */
  flags: string[];
}

export interface LuaLib {
  name: string;
  source: string;
  /** Statements every function including this lib runs first (its per-call state). */
  onCall: string[];
}

export interface LuaSources {
  scripts: LuaScript[];
  libs: LuaLib[];
}

const PIECE_FILE = /^(\d+)-[a-z0-9-]+\.lua$/;

/** A lib's source: its file, or its folder's pieces joined in the order of their leading number. */
function readLib(dir: string, name: string): string {
  const folder = join(dir, 'lib', name);
  if (!existsSync(folder)) return readFileSync(join(dir, 'lib', `${name}.lua`), 'utf8');
  const pieces = readdirSync(folder)
    .map((file) => ({ file, order: PIECE_FILE.exec(file)?.[1] }))
    .filter((piece): piece is { file: string; order: string } => piece.order !== undefined)
    .sort((a, b) => Number(a.order) - Number(b.order));
  if (pieces.length === 0) throw new Error(`lib ${name}: no <n>-<what>.lua piece in ${folder}`);
  return pieces.map(({ file }) => readFileSync(join(folder, file), 'utf8')).join('\n');
}

export function readLuaSources(dir = SCRIPTS_DIR): LuaSources {
  const libs = new Map<string, LuaLib>();
  const lib = (name: string): LuaLib => {
    let found = libs.get(name);
    if (!found) {
      const source = readLib(dir, name);
      found = { name, source, onCall: [...source.matchAll(ON_CALL)].map((m) => m[1]) };
      libs.set(name, found);
    }
    return found;
  };
  const scripts = readdirSync(dir)
    .sort()
    .flatMap((file) => {
      const match = SCRIPT_FILE.exec(file);
      if (!match) return [];
      const source = readFileSync(join(dir, file), 'utf8');
      const includes = [...source.matchAll(INCLUDE)].map((m) => lib(m[1]).name);
      const flags = FLAGS.exec(source)?.[1]?.split(/[\s,]+/) ?? [];
      return [{ name: match[1], numberOfKeys: Number(match[2]), body: source.replace(INCLUDE, ''), includes, flags }];
    });
  return { scripts, libs: [...libs.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

export interface FunctionLibrary {
  name: string;
  /** Each script's registered function name. */
  functions: Record<string, string>;
  code: string;
}

/** The library: every lib's source once, then each script registered as a function of (KEYS, ARGV). */
export function renderFunctionLibrary({ scripts, libs }: LuaSources): FunctionLibrary {
  const version = createHash('sha1').update(JSON.stringify({ scripts, libs })).digest('hex').slice(0, 12);
  const onCallOf = new Map(libs.map((l) => [l.name, l.onCall]));
  const functions: Record<string, string> = {};
  const parts = [`#!lua name=wholesale_${version}`, ...libs.map((l) => `-- lib/${l.name}.lua\n${l.source}`)];
  for (const script of scripts) {
    const name = `${script.name}_${version}`;
    functions[script.name] = name;
    const prologue = script.includes.flatMap((lib) => onCallOf.get(lib) ?? []);
    const callback = `function(KEYS, ARGV)\n${[...prologue, script.body].join('\n')}\nend`;
    const registration =
      script.flags.length === 0
        ? `redis.register_function('${name}', ${callback})`
        : `redis.register_function{function_name = '${name}', flags = { ${script.flags.map((f) => `'${f}'`).join(', ')} }, callback = ${callback}}`;
    parts.push(`-- ${script.name}-${script.numberOfKeys}.lua\n${registration}`);
  }
  return { name: `wholesale_${version}`, functions, code: `${parts.join('\n')}\n` };
}

/** The source as a template literal: readable in the generated file, every character kept. */
const templateLiteral = (text: string): string => `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;

export function renderRedisScripts(sources: LuaSources): string {
  const library = renderFunctionLibrary(sources);
  const entries = sources.scripts.map((s) => `  ${s.name}: { numberOfKeys: ${s.numberOfKeys}, functionName: '${library.functions[s.name]}' },`);
  return [
    `// Generated by \`npm run generate\` from ${relative(ROOT, SCRIPTS_DIR)}/*.lua: do not edit (scripts/generate-redis-scripts.ts).`,
    '',
    '/** Every atomic Redis step: the function that runs it and how many of its arguments are keys. */',
    'export const REDIS_SCRIPTS = {',
    ...entries,
    '} as const;',
    '',
    'export type RedisScriptName = keyof typeof REDIS_SCRIPTS;',
    '',
    '/** The Redis function library (FUNCTION LOAD) that registers every step, named by its content. */',
    'export const REDIS_FUNCTION_LIBRARY = {',
    `  name: '${library.name}',`,
    `  code: ${templateLiteral(library.code)},`,
    '} as const;',
    '',
  ].join('\n');
}

if (require.main === module) {
  const rendered = renderRedisScripts(readLuaSources());
  let current = '';
  try {
    current = readFileSync(GENERATED_SCRIPTS_FILE, 'utf8');
  } catch {
    // not generated yet
  }
  if (process.argv.includes('--check')) {
    if (current !== rendered) {
      process.stderr.write(`${GENERATED_SCRIPTS_FILE} is out of date: run npm run generate\n`);
      process.exit(1);
    }
  } else if (current !== rendered) {
    writeFileSync(GENERATED_SCRIPTS_FILE, rendered);
    process.stdout.write(`wrote ${GENERATED_SCRIPTS_FILE}\n`);
  } else process.stdout.write(`${GENERATED_SCRIPTS_FILE} is up to date\n`);
}
