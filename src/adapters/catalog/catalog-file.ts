import { readFileSync } from 'node:fs';
import { buildCatalog, CatalogError, type Catalog } from '../../domain/catalog/catalog';

/** Reads and validates the catalog file at start; any problem (missing file, bad JSON, bad content) is a CatalogError. */
export function loadCatalogFile(file: string): Catalog {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CatalogError([{ path: file, reason: `cannot be read (${(error as Error).message})` }]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new CatalogError([{ path: file, reason: `is not valid JSON (${(error as Error).message})` }]);
  }
  return buildCatalog(document);
}
