import type { Catalog } from '../catalog/catalog';
import type { FieldProblem } from '../../contract/errors';
import type { CreatePortInCommand } from './commands';

/**
 * A CreatePortIn must name a wholesale plan of the catalog, and add-on buckets only: the plan brings its
 * own primary bucket. Returns every problem found.
 */
export function catalogProblems(command: Pick<CreatePortInCommand, 'wholesalePlanId' | 'bucketRefId'>, catalog: Catalog): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!catalog.plans.has(command.wholesalePlanId)) {
    problems.push({ path: 'wholesalePlanId', reason: `names no wholesale plan of the catalog (${command.wholesalePlanId})` });
  }
  command.bucketRefId.forEach((id, i) => {
    const bucket = catalog.buckets.get(id);
    if (!bucket) problems.push({ path: `bucketRefId[${i}]`, reason: `names no bucket of the catalog (${id})` });
    else if (bucket.kind !== 'ADDON') {
      problems.push({ path: `bucketRefId[${i}]`, reason: `${id} is a ${bucket.kind} bucket: only add-on buckets may be listed, the plan brings its primary bucket` });
    }
  });
  return problems;
}

/**
 * The catalog problems of a raw CreatePortIn whose field problems are already known: only identifiers
 * well-formed enough are looked up, so one field is never reported twice.
 */
export function rawCatalogProblems(raw: unknown, catalog: Catalog, known: readonly FieldProblem[]): FieldProblem[] {
  const flagged = new Set(known.map((p) => p.path));
  const fields = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const planId = typeof fields.wholesalePlanId === 'string' && !flagged.has('wholesalePlanId') ? fields.wholesalePlanId : undefined;
  const bucketIds = Array.isArray(fields.bucketRefId) && !flagged.has('bucketRefId') ? fields.bucketRefId : [];
  return catalogProblems({ wholesalePlanId: planId ?? '', bucketRefId: bucketIds.map((id) => (typeof id === 'string' ? id : '')) }, catalog).filter(
    (p) => !flagged.has(p.path) && (p.path !== 'wholesalePlanId' || planId !== undefined),
  );
}
