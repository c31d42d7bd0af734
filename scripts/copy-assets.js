// tsc compiles TypeScript only; the Lua scripts ship beside the compiled store code.
const { cpSync } = require('node:fs');
cpSync('src/adapters/redis/scripts', 'dist/src/adapters/redis/scripts', { recursive: true });
