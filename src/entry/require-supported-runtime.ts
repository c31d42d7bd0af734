import { basename } from 'node:path';
import { unsupportedRuntimeLine } from '../config/runtime-version';

// Imported first by every entry point, before anything loads the Kafka client: on an older Node that client
// dies deep inside with `Promise.withResolvers is not a function` instead of saying what is wrong.
const line = unsupportedRuntimeLine(basename(process.argv[1] ?? 'wholesale').replace(/\.(ts|js)$/, ''), process.version);
if (line !== undefined) {
  process.stderr.write(`${line}\n`);
  process.exit(2);
}
