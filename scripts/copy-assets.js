// tsc compiles TypeScript only; the Lua scripts ship beside the compiled store code, and the Avro schemas
// where src/contract/schemas.ts looks for them from dist/src/contract (dist/schemas).
const { cpSync } = require('node:fs');
cpSync('src/adapters/redis/scripts', 'dist/src/adapters/redis/scripts', { recursive: true });
cpSync('schemas', 'dist/schemas', { recursive: true });
