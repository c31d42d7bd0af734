import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { GENERATED_SCRIPTS_FILE, readLuaSources, renderFunctionLibrary, renderRedisScripts, type LuaSources } from '../../../scripts/generate-redis-scripts';

/** The Lua scripts are compiled into one function library in a TypeScript module at generate time; it must not drift. */
describe('src/adapters/redis/scripts.generated.ts', () => {
  it('is what the .lua files generate (run `npm run generate` after changing a script)', () => {
    expect(readFileSync(GENERATED_SCRIPTS_FILE, 'utf8')).toBe(renderRedisScripts(readLuaSources()));
  });

  const demo: LuaSources = {
    scripts: [
      { name: 'demoStep', numberOfKeys: 3, body: 'return `${KEYS[1]}` .. "\\n" .. counter.n', includes: ['counter'], flags: [] },
      { name: 'plainStep', numberOfKeys: 0, body: 'return 1', includes: [], flags: ['no-writes'] },
    ],
    libs: [{ name: 'counter', source: 'local counter\n-- @on-call counter = { n = 0 }', onCall: ['counter = { n = 0 }'] }],
  };

  it('registers each script as a function of (KEYS, ARGV), a lib once, its per-call statements first in each function including it', () => {
    const library = renderFunctionLibrary(demo);
    expect(library.code.startsWith(`#!lua name=${library.name}\n`)).toBe(true);
    expect(library.code.split('local counter\n').length).toBe(2);
    expect(library.code).toContain(`redis.register_function('${library.functions.demoStep}', function(KEYS, ARGV)\ncounter = { n = 0 }\nreturn \`\${KEYS[1]}\` .. "\\n" .. counter.n\nend)`);
    expect(library.code).toContain(`redis.register_function{function_name = '${library.functions.plainStep}', flags = { 'no-writes' }, callback = function(KEYS, ARGV)\nreturn 1\nend}`);
  });

  it('names the library and its functions by their content, so two versions of the service can share a Redis', () => {
    const changed = renderFunctionLibrary({ ...demo, scripts: [{ ...demo.scripts[0], body: 'return 2' }, demo.scripts[1]] });
    const same = renderFunctionLibrary(demo);
    expect(renderFunctionLibrary(demo).name).toBe(same.name);
    expect(changed.name).not.toBe(same.name);
    expect(changed.functions.plainStep).not.toBe(same.functions.plainStep);
    expect(same.functions.plainStep).toMatch(/^plainStep_[0-9a-f]{12}$/);
  });

  it('keeps the key count from the file name and every character of the source in the module', () => {
    const out = renderRedisScripts(demo);
    const compiled = { exports: {} as { REDIS_SCRIPTS?: Record<string, { numberOfKeys: number }>; REDIS_FUNCTION_LIBRARY?: { code: string } } };
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the generated module's text, which is what is tested
    new Function('exports', ts.transpileModule(out, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText)(compiled.exports);
    expect(compiled.exports.REDIS_SCRIPTS?.demoStep?.numberOfKeys).toBe(3);
    expect(compiled.exports.REDIS_FUNCTION_LIBRARY?.code).toBe(renderFunctionLibrary(demo).code);
    const sources = readLuaSources();
    expect(sources.scripts.find((s) => s.name === 'balancesUpdate')).toMatchObject({ numberOfKeys: 4, includes: ['balance'] });
    expect(sources.scripts.every((s) => !/^--\s*@include/m.test(s.body))).toBe(true);
    expect(sources.libs.find((l) => l.name === 'balance')?.onCall).toEqual(['hash = emptyHash()']);
    expect(sources.scripts.filter((s) => s.flags.includes('no-writes')).map((s) => s.name)).toEqual(['balancesSchedule', 'ledgerRead', 'portinFind', 'portinRead']);
  });
});
