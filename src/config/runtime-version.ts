// The Node major every program needs: package.json `engines` names the same (test/unit/config/runtime-version.test.ts).
export const REQUIRED_NODE_MAJOR = 24;

/** The one line a program prints before it stops when `version` (process.version) is older than it needs; undefined when it fits. */
export function unsupportedRuntimeLine(program: string, version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return `${program}: needs Node ${REQUIRED_NODE_MAJOR} or later; this is Node ${version} (docs/node.md: run it through npm scripts or npx, or with Node ${REQUIRED_NODE_MAJOR} first on the PATH)`;
}
