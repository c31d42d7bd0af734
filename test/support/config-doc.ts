import { isDeepStrictEqual } from 'node:util';
import { ConfigError, EnvReader } from '../../src/config/env';

/**
 * Checks a configuration table of docs/operations.md against the loader it documents: the variables the
 * loader reads (found by watching it read an environment) must be exactly the rows, and each default
 * written as `value` must be the one the loader applies (setting it changes nothing); a default written
 * "— (required)" must be one the loader refuses to start without.
 */
export type Loader = (env: Readonly<Record<string, string | undefined>>) => unknown;

export interface DocumentedVariable {
  name: string;
  default: string;
}

/** The rows of the first table under the heading that names the loader in backticks (`loadConfig`). */
export function tableFor(markdown: string, loaderName: string): DocumentedVariable[] {
  const sections = markdown.split(/^#{2,4} /m);
  const section = sections.find((s) => s.split('\n', 1)[0].includes(`\`${loaderName}\``));
  if (!section) return [];
  return section
    .split('\n')
    .map((line) => /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, name, defaultCell]) => ({ name: name, default: defaultCell }));
}

/** Every variable the loader asks its EnvReader for, given an environment holding `base`. */
export function variablesRead(load: Loader, base: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const prototype = EnvReader.prototype as unknown as Record<string, (variable: string, ...rest: unknown[]) => unknown>;
  const methods = Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor' && typeof prototype[name] === 'function');
  const originals = methods.map((name) => [name, prototype[name]] as const);
  for (const [name, original] of originals) {
    prototype[name] = function (this: EnvReader, variable: string, ...rest: unknown[]) {
      read.add(variable);
      return original.call(this, variable, ...rest);
    };
  }
  try {
    load(base);
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
  return read;
}

export function configDocDrift(rows: readonly DocumentedVariable[], load: Loader, base: Record<string, string>): string[] {
  const problems: string[] = [];
  const read = variablesRead(load, base);
  const documented = new Set(rows.map((row) => row.name));
  for (const name of read) if (!documented.has(name)) problems.push(`${name} is read by the code but not documented`);
  for (const name of documented) if (!read.has(name)) problems.push(`${name} is documented but the code does not read it`);
  const reference = load(base);
  for (const row of rows.filter((r) => read.has(r.name))) {
    const literal = /^`([^`]*)`$/.exec(row.default);
    if (literal) {
      let withDefault: unknown;
      try {
        withDefault = load({ ...base, [row.name]: literal[1] });
      } catch (error) {
        problems.push(`${row.name}: the documented default \`${literal[1]}\` is refused (${(error as Error).message})`);
        continue;
      }
      if (!isDeepStrictEqual(withDefault, reference)) problems.push(`${row.name}: the documented default \`${literal[1]}\` is not the one the code applies`);
    } else if (row.default.startsWith('— (required)')) {
      const { [row.name]: _omitted, ...without } = base;
      let refused = false;
      try {
        load(without);
      } catch (error) {
        refused = error instanceof ConfigError && error.variable === row.name;
      }
      if (!refused) problems.push(`${row.name} is documented as required but the code starts without it`);
    } else if (!row.default.startsWith('—')) {
      problems.push(`${row.name}: write the default as \`value\`, "— (required)" or "— (explanation)"`);
    }
  }
  return problems;
}
