import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSchemas } from '../src/adapters/registry/schemas';
import { generateContractTypes } from './contract-typegen';

/** `npm run generate`: rewrites src/contract/types.generated.ts from schemas/ (`--check` only compares). */
export const GENERATED_TYPES_FILE = join(__dirname, '..', 'src', 'contract', 'types.generated.ts');

export const renderContractTypes = (): string => generateContractTypes(loadSchemas().values());

if (require.main === module) {
  const rendered = renderContractTypes();
  const current = (() => {
    try {
      return readFileSync(GENERATED_TYPES_FILE, 'utf8');
    } catch {
      return '';
    }
  })();
  if (process.argv.includes('--check')) {
    if (current !== rendered) {
      process.stderr.write(`${GENERATED_TYPES_FILE} is out of date: run npm run generate\n`);
      process.exit(1);
    }
  } else if (current !== rendered) {
    writeFileSync(GENERATED_TYPES_FILE, rendered);
    process.stdout.write(`wrote ${GENERATED_TYPES_FILE}\n`);
  } else process.stdout.write(`${GENERATED_TYPES_FILE} is up to date\n`);
}
