// tsc compiles TypeScript only: the Lua scripts and the Avro schemas ship beside the compiled code
// (SCHEMAS_DIR resolves to dist/schemas once built).
const { cpSync } = require('node:fs');
cpSync('src/adapters/redis/scripts', 'dist/src/adapters/redis/scripts', { recursive: true });
cpSync('schemas', 'dist/schemas', { recursive: true });
