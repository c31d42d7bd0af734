#!/usr/bin/env node
'use strict';
// The `wholesale` command. In a checkout (TypeScript sources and tsx present) it runs src/entry/cli.ts
// through tsx, so it is never stale; an installed, built package runs the compiled dist/src/entry/cli.js.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'src', 'entry', 'cli.ts');
const compiled = join(root, 'dist', 'src', 'entry', 'cli.js');

function tsxAvailable() {
  try {
    require.resolve('tsx/cjs/api', { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

if (existsSync(source) && tsxAvailable()) {
  require(require.resolve('tsx/cjs/api', { paths: [root] })).register();
  require(source);
} else if (existsSync(compiled)) {
  require(compiled);
} else {
  process.stderr.write('wholesale: neither the TypeScript sources with tsx nor a build (npm run build) were found\n');
  process.exit(1);
}
