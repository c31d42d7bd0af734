import ts from 'typescript';

/**
 * Type errors of `files` (virtual, by absolute path; modules resolve from where each is said to live)
 * compiled together with TypeScript's own lib files, as `path: message`.
 */
export function typeErrors(files: Record<string, string>, overrides: ts.CompilerOptions = {}): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    module: ts.ModuleKind.CommonJS,
    types: [],
    ...overrides,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => name in files || ts.sys.fileExists(name);
  host.directoryExists = (name) => Object.keys(files).some((file) => file.startsWith(`${name}/`)) || ts.sys.directoryExists(name);
  host.readFile = (name) => files[name] ?? readFile(name);
  host.getSourceFile = (name, language) => (name in files ? ts.createSourceFile(name, files[name], language) : getSourceFile(name, language));
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
