import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { GENERATED_SCRIPTS_FILE, readLuaScripts, renderRedisScripts } from '../../../scripts/generate-redis-scripts';

/** The Lua scripts are compiled into a TypeScript module at generate time (as BullMQ does); it must not drift. */
describe('src/adapters/redis/scripts.generated.ts', () => {
  it('is what the .lua files generate (run `npm run generate` after changing a script)', () => {
    expect(readFileSync(GENERATED_SCRIPTS_FILE, 'utf8')).toBe(renderRedisScripts(readLuaScripts()));
  });

  it('inlines includes, keeps the key count from the file name and every character of the source', () => {
    const out = renderRedisScripts([{ name: 'demoStep', numberOfKeys: 3, lua: 'return `${KEYS[1]}` .. "\\n"' }]);
    expect(out).toContain('  demoStep: {\n    numberOfKeys: 3,\n    lua: `return \\`\\${KEYS[1]}\\` .. "\\\\n"`,\n  },');
    const compiled = { exports: {} as { REDIS_SCRIPTS?: Record<string, { lua: string }> } };
    new Function('exports', ts.transpileModule(out, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText)(compiled.exports);
    expect(compiled.exports.REDIS_SCRIPTS?.demoStep?.lua).toBe('return `${KEYS[1]}` .. "\\n"');
    const scripts = readLuaScripts();
    expect(scripts.find((s) => s.name === 'balancesUpdate')).toMatchObject({ numberOfKeys: 4 });
    expect(scripts.every((s) => !/^--\s*@include/m.test(s.lua))).toBe(true);
  });
});
