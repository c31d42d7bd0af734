// tsc compiles TypeScript only: the Avro schemas ship beside the compiled code (SCHEMAS_DIR resolves to
// dist/schemas once built). The Lua scripts need no copy: they are compiled in (scripts.generated.ts).
const { cpSync } = require('node:fs');
cpSync('schemas', 'dist/schemas', { recursive: true });
