import { existsSync, readFileSync } from 'node:fs';
import { CustomerHierarchy, HierarchyError } from './hierarchy';

/** Reads and validates CUSTOMERS_FILE; a bad file stops the service at start with every problem listed. */
export function loadHierarchyFile(file: string): CustomerHierarchy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`CUSTOMERS_FILE ${file}: cannot read JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    return CustomerHierarchy.parse(raw);
  } catch (error) {
    if (error instanceof HierarchyError) throw new Error(`CUSTOMERS_FILE ${file}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** AUTH_MODE=none may run without a hierarchy file; one that exists must still be valid. */
export const loadOptionalHierarchyFile = (file: string): CustomerHierarchy | undefined => (existsSync(file) ? loadHierarchyFile(file) : undefined);
